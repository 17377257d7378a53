package api_test

import (
	"testing"
)

// TestScoreWithoutRank: ?rank=false writes as any write does and answers
// without rank, board_size and zone; a retry answers as its first write
// did; a batch takes it for every write. Replies are checked against
// openapi.yaml (fixture.do); a bad value is in badInputs.
func TestScoreWithoutRank(t *testing.T) {
	for name, open := range map[string]func(testing.TB, ...option) *fixture{"redis": onRedis, "miniredis": onMini} {
		t.Run(name, func(t *testing.T) {
			f := open(t)
			f.join("alice")
			f.join("bob")
			f.score("bob", 5)

			const path = "/v1/leagues/weekly/scores"
			body := `{"player_id":"alice","value":7,"request_id":"r1"}`
			r := f.must("POST", path+"?rank=false", body)
			if r["score"] != 7.0 || r["tier"] != "bronze" || r["board"] != "bronze-1" || r["replayed"] != false {
				t.Fatalf("rank=false: got %v, want score 7 on bronze-1", r)
			}
			for _, field := range []string{"rank", "board_size", "zone"} {
				if _, ok := r[field]; ok {
					t.Errorf("rank=false: the reply has %s: %v", field, r)
				}
			}
			for _, q := range []string{"?rank=false", "", "?rank=true"} {
				again := f.must("POST", path+q, body)
				if again["replayed"] != true || again["score"] != 7.0 || again["rank"] != nil || again["zone"] != nil {
					t.Errorf("retry%s of the rank-less write: %v, want its answer again, replayed, no rank", q, again)
				}
			}
			if st := f.must("GET", "/v1/leagues/weekly/players/alice", ""); st["score"] != 7.0 || st["rank"] != 1.0 {
				t.Fatalf("alice after the rank-less write: %v, want score 7 at rank 1", st)
			}

			ranked := f.must("POST", path+"?rank=true", `{"player_id":"bob","value":1,"request_id":"r2"}`)
			again := f.must("POST", path+"?rank=false", `{"player_id":"bob","value":1,"request_id":"r2"}`)
			if ranked["rank"] != 2.0 || ranked["board_size"] != 2.0 || again["rank"] != 2.0 || again["zone"] != ranked["zone"] || again["replayed"] != true {
				t.Fatalf("a ranked write %v and its rank-less retry %v: want rank 2 of 2 in both", ranked, again)
			}

			b := f.must("POST", path+"/batch?rank=false", `{"writes":[{"player_id":"alice","value":1},{"player_id":"nobody","value":1}]}`)
			res := b["results"].([]any)
			first := res[0].(map[string]any)
			if first["score"] != 8.0 || first["rank"] != nil || first["board_size"] != nil || res[1].(map[string]any)["error"] == nil {
				t.Fatalf("batch with rank=false: %v, want alice at 8 without rank, nobody's error", res)
			}
		})
	}
}
