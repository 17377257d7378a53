package api

import (
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// The hand-written replies must write what encoding/json would write for
// the same shape: these tests marshal a struct of that shape and compare.

var stringCases = []string{
	"", "plain", `quote " backslash \ slash /`, "<script>&amp;</script>", "tab\tnewline\nreturn\r",
	"\x00\x01\x1f\x7f", "\b\f", "é ü 日本 🎮", "line\u2028para\u2029", "bad utf8 \xff\xfe end", "\xc3", "a\xc3(b",
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range stringCases {
		checkString(t, s)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range stringCases {
		f.Add(s)
	}
	f.Fuzz(checkString)
}

func checkString(t *testing.T, s string) {
	want, _ := json.Marshal(s)
	if got := appendString(nil, s); string(got) != string(want) {
		t.Errorf("appendString(%q) = %s, want %s", s, got, want)
	}
}

var testPeriod = league.Period{
	Start: time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC),
	End:   time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC),
}

// scoreShape is the documented shape of a score result.
type scoreShape struct {
	PlayerID  string `json:"player_id,omitempty"`
	League    string `json:"league"`
	Period    string `json:"period"`
	Tier      string `json:"tier"`
	Board     string `json:"board"`
	Score     int64  `json:"score"`
	Rank      int    `json:"rank"`
	BoardSize int    `json:"board_size"`
	Zone      string `json:"zone"`
	Replayed  bool   `json:"replayed"`
}

func scoreShapeOf(player, lg string, r league.ScoreResult) scoreShape {
	return scoreShape{player, lg, r.Period.ID(), r.Tier, r.Board.String(), r.Score, r.Rank, r.BoardSize, r.Zone.String(), r.Replayed}
}

func TestScoreRepliesMatchEncodingJSON(t *testing.T) {
	res := league.ScoreResult{Period: testPeriod, Tier: "gold", Board: league.BoardID{Tier: "gold", N: 3},
		Score: 1234, Rank: 2, BoardSize: 100, Zone: tiers.Promote, Replayed: true}
	same(t, scoreReply{league: "weekly", res: res}, scoreShapeOf("", "weekly", res))

	failed := league.Errorf(league.NotJoined, `player "<x>" has not joined`)
	writes := []league.ScoreWrite{{Player: "a"}, {Player: "<b>"}, {Player: "c\u2028"}}
	batch := batchReply{league: "weekly", writes: writes,
		results: []league.ScoreResult{res, {}, res}, errs: []error{nil, failed, errors.New("boom")}}
	type failure struct {
		PlayerID string     `json:"player_id"`
		Error    *errorBody `json:"error"`
	}
	same(t, batch, map[string][]any{"results": {
		scoreShapeOf("a", "weekly", res),
		failure{"<b>", newErrorBody(failed)},
		failure{"c\u2028", newErrorBody(errors.New("boom"))},
	}})
	same(t, batchReply{league: "weekly"}, map[string][]any{"results": {}})
}

func TestBoardReplyMatchesEncodingJSON(t *testing.T) {
	type entry struct {
		Rank     int    `json:"rank"`
		PlayerID string `json:"player_id"`
		Name     string `json:"name"`
		Avatar   string `json:"avatar"`
		Score    int64  `json:"score"`
		Zone     string `json:"zone"`
	}
	type shape struct {
		League    string  `json:"league"`
		Period    string  `json:"period"`
		PeriodEnd string  `json:"period_end"`
		Board     string  `json:"board"`
		Tier      string  `json:"tier"`
		Source    string  `json:"source"`
		Entries   []entry `json:"entries"`
	}
	b := league.Board{League: "weekly", Period: testPeriod, ID: league.BoardID{Tier: "silver", N: 12}, Entries: []league.Entry{
		{Rank: 1, Player: "p1", Name: "Ann <3", Avatar: "cat", Score: 99, Zone: tiers.Promote},
		{Rank: 2, Player: "p2", Name: "Bo \"B\"", Score: 0, Zone: tiers.Demote},
	}}
	want := shape{League: "weekly", Period: testPeriod.ID(), PeriodEnd: testPeriod.End.UTC().Format(time.RFC3339), Board: "silver-12", Tier: "silver", Source: "live", Entries: []entry{}}
	for _, e := range b.Entries {
		want.Entries = append(want.Entries, entry{e.Rank, e.Player, e.Name, e.Avatar, e.Score, e.Zone.String()})
	}
	same(t, boardReply{b}, want)
}

func TestErrorReplyMatchesEncodingJSON(t *testing.T) {
	same(t, errorReply{code: league.Invalid, message: `value: "7" <bad>`},
		map[string]errorBody{"error": {Code: league.Invalid, Message: `value: "7" <bad>`}})
}

func same(t *testing.T, r reply, shape any) {
	t.Helper()
	got, err := r.appendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(shape)
	if string(got) != string(want) {
		t.Errorf("hand-written reply\n got %s\nwant %s", got, want)
	}
}

// TestStatusOfEveryCode checks the table has every code of the domain.
func TestStatusOfEveryCode(t *testing.T) {
	want := map[league.Code]int{
		league.Invalid: 400, league.Unauthorized: 401, league.Forbidden: 403, league.NotFound: 404,
		league.NotJoined: 409, league.PeriodClosed: 409, league.Conflict: 409, league.Overflow: 422,
		league.Unavailable: 503, league.Internal: 500, league.RateLimited: 429, league.Banned: 403, league.Moderated: 403,
	}
	if len(statusOf) != len(want) {
		t.Errorf("statusOf has %d codes, want %d", len(statusOf), len(want))
	}
	for code, st := range want {
		if got := status(&league.Error{Code: code}); got != st {
			t.Errorf("status(%s) = %d, want %d", code, got, st)
		}
	}
	if got := status(errors.New("plain")); got != http.StatusInternalServerError {
		t.Errorf("status(plain error) = %d, want 500", got)
	}
	if got := status(methodNotAllowed("PUT", []string{"GET"})); got != http.StatusMethodNotAllowed {
		t.Errorf("status(methodNotAllowed) = %d, want 405", got)
	}
}

func TestScoreValue(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"7", 7, true}, {"-3", -3, true}, {"1e3", 1000, true}, {"2.0", 2, true},
		{"999999999999999999", 999999999999999999, true}, {"9223372036854775807", 9223372036854775807, true},
		{"9223372036854775808", 0, false}, {"1.5", 0, false}, {"1e400", 0, false}, {"-1e400", 0, false},
		// Exact by their digits, never through a float64 (which rounds these).
		{"999999.99999999999", 0, false}, {"0.99999999999999999", 0, false}, {"1.0000000000000001", 0, false},
		{"1e-400", 0, false}, {"-1e-400", 0, false}, {"1e-320", 0, false}, {"5e-1", 0, false},
		{"2.5e1", 25, true}, {"-0", 0, true}, {"-0.0e5", 0, true}, {"0e99999999999", 0, true}, {"1.0e0", 1, true},
		{"100e-2", 1, true}, {"12300e-2", 123, true}, {"9007199254740993", 9007199254740993, true},
		{"9.223372036854775807e18", 9223372036854775807, true}, {"-9223372036854775808", -9223372036854775808, true},
		{"9.223372036854775808e18", 0, false}, {"1e19", 0, false}, {"1e999999999999999999999", 0, false},
		{`"7"`, 0, false}, {"true", 0, false}, {"null", 0, false}, {"[1]", 0, false}, {"{}", 0, false}, {"", 0, false},
		// Past the old clamp of the exponent, and still 1 and 10 within a
		// body of MaxBody bytes.
		{"0." + strings.Repeat("0", 1_000_000) + "1e1000001", 1, true},
		{"0." + strings.Repeat("0", 1_000_000) + "1e1000002", 10, true},
		{"0." + strings.Repeat("0", 1_000_000) + "1e1000000", 0, false},
	} {
		v, err := scoreValue("value", json.RawMessage(c.raw))
		if (err == nil) != c.ok || v != c.want {
			t.Errorf("scoreValue(%.80s) = %d, %.200v; want %d, ok %v", c.raw, v, err, c.want, c.ok)
		}
		if err != nil && len(err.Error()) > 200 {
			t.Errorf("scoreValue(%.80s): a message of %d bytes echoes the input whole", c.raw, len(err.Error()))
		}
		if err != nil && league.ErrorCode(err) != league.Invalid {
			t.Errorf("scoreValue(%s): code %s, want invalid", c.raw, league.ErrorCode(err))
		}
	}
}

// FuzzScoreValue checks scoreValue against math/big's exact reading of the
// same JSON number: an integer within int64 is accepted as itself, anything
// else is refused as invalid.
func FuzzScoreValue(f *testing.F) {
	for _, s := range []string{"7", "-0", "1.5", "999999.99999999999", "2.5e1", "1e-400", "9.223372036854775807e18", "12300e-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var n json.Number
		if json.Unmarshal([]byte(text), &n) != nil || len(text) > 64 || strings.TrimSpace(text) != text {
			return // not one JSON number; big.Rat below needs a small exponent
		}
		if i := strings.IndexAny(text, "eE"); i >= 0 && len(strings.TrimLeft(text[i+1:], "+-0")) > 4 {
			return // big.Rat would build 10^e; exponent() clamps, covered by TestScoreValue
		}
		want, exact := new(big.Rat), false
		if _, ok := want.SetString(text); ok && want.IsInt() && want.Num().IsInt64() {
			exact = true
		}
		v, err := scoreValue("value", []byte(text))
		switch {
		case exact && (err != nil || v != want.Num().Int64()):
			t.Fatalf("scoreValue(%s) = %d, %v; want %s", text, v, err, want.Num())
		case !exact && err == nil:
			t.Fatalf("scoreValue(%s) = %d; want an error", text, v)
		case err != nil && league.ErrorCode(err) != league.Invalid:
			t.Fatalf("scoreValue(%s): code %s, want invalid", text, league.ErrorCode(err))
		}
	})
}

func TestLeaderboardRepliesMatchEncodingJSON(t *testing.T) {
	day := leaderboard.Period{Kind: leaderboard.Day, Start: testPeriod.Start, End: testPeriod.Start.Add(24 * time.Hour)}
	all := leaderboard.Period{Kind: leaderboard.AllTime}
	l := &leaderboard.Leaderboard{ID: "kills", Kinds: []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime},
		Windows: []leaderboard.Window{{N: 7, Unit: leaderboard.Day}}}
	if err := l.Init(); err != nil {
		t.Fatal(err)
	}
	week := leaderboard.Period{Kind: "7d", Start: day.Start, End: day.End}
	w := lbWriteJSON{Leaderboard: "kills", Member: `a<"b">`, Replayed: true,
		Boards: placements(l, []leaderboard.Placement{{Period: day, Score: -5, Rank: 2}, {Period: all, Score: 9, Rank: 1}, {Period: week, Score: 3, Rank: 4}})}
	same(t, w, w)
	w.Public = placements(l, []leaderboard.Placement{{Period: day, Score: -50, Rank: 3}, {Period: all, Score: 90, Rank: 1}})
	same(t, w, w)
	b := lbBoardJSON{Leaderboard: "kills", periodJSON: newPeriodJSON(l, day), Size: 2,
		Entries: []entryJSON{{Rank: 1, Member: "m\u2028", Score: 7, Name: "Émile <3>", Metadata: json.RawMessage(`{"avatar":"a.png"}`)},
			{Rank: 2, Member: "n", Score: -1}}}
	same(t, b, b)
	same(t, lbBoardJSON{Leaderboard: "kills", periodJSON: newPeriodJSON(l, all), Entries: []entryJSON{}},
		lbBoardJSON{Leaderboard: "kills", periodJSON: newPeriodJSON(l, all), Entries: []entryJSON{}})
	same(t, lbBoardJSON{Leaderboard: "kills", periodJSON: newPeriodJSON(l, day), Archived: true, Entries: []entryJSON{}},
		lbBoardJSON{Leaderboard: "kills", periodJSON: newPeriodJSON(l, day), Archived: true, Entries: []entryJSON{}})
	same(t, lbBoardJSON{Leaderboard: "kills", periodJSON: newPeriodJSON(l, day), Participants: counted(0), Entries: []entryJSON{}},
		lbBoardJSON{Leaderboard: "kills", periodJSON: newPeriodJSON(l, day), Participants: counted(0), Entries: []entryJSON{}})
	same(t, lbBoardJSON{Leaderboard: "kills", periodJSON: newPeriodJSON(l, week), Incomplete: true, Entries: []entryJSON{{Rank: 1, Member: "m", Score: 7}}},
		lbBoardJSON{Leaderboard: "kills", periodJSON: newPeriodJSON(l, week), Incomplete: true, Entries: []entryJSON{{Rank: 1, Member: "m", Score: 7}}})
}
