package api_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// Benchmarks of the two hot routes against the real Redis, to hold the
// product target: HTTP score writes at >= 40% of the rate of one EVALSHA,
// board reads of 100 entries at >= 40% of a ZREVRANGE 0 99 WITHSCORES.
//
//	go test -run XXX -bench . -benchmem ./api/
//
// BenchmarkScoreHandler and BenchmarkBoardHandler call the handler directly
// (the API's own cost and allocations); the ...HTTP benchmarks go through a
// loopback server with concurrent clients, and the Redis... benchmarks are
// their baselines with the same concurrency. Compare ns/op of an HTTP
// benchmark with its baseline.

const benchPlayers = 100

// benchFixture is a board of 100 players with scores, on the real Redis,
// in a league whose maximum score is the packing's.
func benchFixture(b *testing.B, opts ...option) *fixture {
	f := onRedis(b, append(opts, withLeague(func(l *league.League) { l.BoardSize = benchPlayers; l.MaxScore = 0 }))...)
	f.unchecked = true
	for i := range benchPlayers {
		p := fmt.Sprintf("player-%03d", i)
		if _, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: p, Name: "Name " + p, Avatar: "av"}); err != nil {
			b.Fatal(err)
		}
		if _, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: p, Value: int64(i)}); err != nil {
			b.Fatal(err)
		}
	}
	return f
}

// benchWriter is a ResponseWriter that keeps nothing but the status, so
// the benchmark measures the handler, not a recorder.
type benchWriter struct {
	header http.Header
	status int
}

func (w *benchWriter) Header() http.Header         { return w.header }
func (w *benchWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *benchWriter) WriteHeader(status int)      { w.status = status }

func benchRequest(method, target string, body []byte) *http.Request {
	u, _ := url.Parse(target)
	r := &http.Request{Method: method, URL: u, Header: http.Header{"Authorization": {"Bearer " + gameKey}},
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Host: "bench", RemoteAddr: "127.0.0.1:1", RequestURI: target}
	r = r.WithContext(context.Background())
	if body != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	return r
}

func BenchmarkScoreHandler(b *testing.B) {
	benchScoreHandler(b, benchFixture(b), "/v1/leagues/weekly/scores")
}

// BenchmarkScoreHandlerNoRank is BenchmarkScoreHandler asking for no rank
// (?rank=false): the query's parse against the reply's three fields and
// Redis's ZREVRANK and ZCARD fewer.
func BenchmarkScoreHandlerNoRank(b *testing.B) {
	benchScoreHandler(b, benchFixture(b), "/v1/leagues/weekly/scores?rank=false")
}

// BenchmarkScoreHandlerTraced is BenchmarkScoreHandler with a span for
// every request, every one sampled and recorded (then dropped): the
// request's own cost of tracing (tracing.otlp_endpoint), beside
// BenchmarkScoreHandler's none.
func BenchmarkScoreHandlerTraced(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithSpanProcessor(sdktrace.NewSimpleSpanProcessor(tracetest.NewNoopExporter())))
	b.Cleanup(func() { tp.Shutdown(context.Background()) })
	benchScoreHandler(b, benchFixture(b, withConfig(func(c *api.Config) { c.Tracer = tp.Tracer("bench") })), "/v1/leagues/weekly/scores")
}

func benchScoreHandler(b *testing.B, f *fixture, target string) {
	bodies := make([][]byte, benchPlayers)
	for i := range bodies {
		bodies[i] = fmt.Appendf(nil, `{"player_id":"player-%03d","value":1}`, i)
	}
	w := &benchWriter{header: http.Header{}}
	b.ReportAllocs()
	cpu := testsvc.StartCPU(b, f.rdb)
	for i := 0; b.Loop(); i++ {
		r := benchRequest("POST", target, bodies[i%benchPlayers])
		f.handler.ServeHTTP(w, r)
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
	cpu.Report(b)
}

func BenchmarkBoardHandler(b *testing.B) {
	f := benchFixture(b)
	w := &benchWriter{header: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		f.handler.ServeHTTP(w, benchRequest("GET", "/v1/leagues/weekly/boards/bronze-1", nil))
		if w.status != http.StatusOK {
			b.Fatalf("status %d", w.status)
		}
	}
}

// benchParallelism is how many goroutines per core the parallel
// benchmarks run: enough to keep Redis busy despite round trips.
const benchParallelism = 8

// loopback serves the fixture on a loopback port and returns a client
// that keeps enough connections open for the parallel benchmarks.
func loopback(b *testing.B, f *fixture) (string, *http.Client) {
	srv := httptest.NewServer(f.handler)
	b.Cleanup(srv.Close)
	tr := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}
	b.Cleanup(tr.CloseIdleConnections)
	return srv.URL, &http.Client{Transport: tr}
}

func BenchmarkScoreHTTP(b *testing.B) {
	f := benchFixture(b)
	base, client := loopback(b, f)
	var n atomic.Int64
	b.SetParallelism(benchParallelism)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			body := fmt.Sprintf(`{"player_id":"player-%03d","value":1}`, n.Add(1)%benchPlayers)
			req, _ := http.NewRequest("POST", base+"/v1/leagues/weekly/scores", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+gameKey)
			drain(b, client, req)
		}
	})
}

func BenchmarkBoardHTTP(b *testing.B) {
	f := benchFixture(b)
	base, client := loopback(b, f)
	b.SetParallelism(benchParallelism)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("GET", base+"/v1/leagues/weekly/boards/bronze-1", nil)
			req.Header.Set("Authorization", "Bearer "+gameKey)
			drain(b, client, req)
		}
	})
}

func drain(b *testing.B, client *http.Client, req *http.Request) {
	resp, err := client.Do(req)
	if err != nil {
		b.Error(err)
		return
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Errorf("status %d", resp.StatusCode)
	}
}

// BenchmarkRedisScore is the baseline of BenchmarkScoreHTTP: the engine's
// score write, one EVALSHA of score.lua, with the same concurrency.
func BenchmarkRedisScore(b *testing.B) {
	f := benchFixture(b)
	var n atomic.Int64
	b.SetParallelism(benchParallelism)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p := fmt.Sprintf("player-%03d", n.Add(1)%benchPlayers)
			if _, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: p, Value: 1}); err != nil {
				b.Error(err)
			}
		}
	})
}

// BenchmarkRedisZRevRange is the baseline of BenchmarkBoardHTTP: a plain
// ZREVRANGE 0 99 WITHSCORES of the same board, with the same concurrency.
func BenchmarkRedisZRevRange(b *testing.B) {
	f := benchFixture(b)
	keys, err := f.rdb.Keys(f.ctx, f.ns+":{weekly}:b:*").Result()
	if err != nil || len(keys) != 1 {
		b.Fatalf("board keys %v, %v; want one", keys, err)
	}
	b.SetParallelism(benchParallelism)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if zs, err := f.rdb.ZRevRangeWithScores(f.ctx, keys[0], 0, 99).Result(); err != nil || len(zs) != benchPlayers {
				b.Errorf("ZREVRANGE: %d entries, %v", len(zs), err)
			}
		}
	})
}

// BenchmarkEngineBoard is the engine's share of BenchmarkBoardHTTP: its
// board read (ZREVRANGE and the names' HGETALL, pipelined) without HTTP.
func BenchmarkEngineBoard(b *testing.B) {
	f := benchFixture(b)
	id := league.BoardID{Tier: "bronze", N: 1}
	b.SetParallelism(benchParallelism)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if bd, err := f.engine.Board(f.ctx, "weekly", league.Period{}, id); err != nil || len(bd.Entries) != benchPlayers {
				b.Errorf("Board: %d entries, %v", len(bd.Entries), err)
			}
		}
	})
}
