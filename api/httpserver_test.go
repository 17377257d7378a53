package api_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/internal/testsvc"
)

// TestHTTPServerAnswersAsHandler sends the same requests to the handler
// directly and through api.HTTPServer over loopback, each side on a fixture
// of its own in the same state, and requires the same replies: status,
// the headers clients act on, and the body byte for byte.
func TestHTTPServerAnswersAsHandler(t *testing.T) {
	direct, served := onMini(t), onMini(t)
	served.serve()
	// /readyz reports the store's state from a ping it sends in the
	// background at the first probe: wait for each side's answer, so both
	// report the same state rather than whichever the race left.
	for _, f := range []*fixture{direct, served} {
		waitStoreChecked(t, f)
	}
	for _, rq := range []struct{ method, path, body, key string }{
		{"GET", "/healthz", "", noKey},
		{"GET", "/readyz", "", noKey},
		{"POST", "/v1/leagues/weekly/join", `{"player_id":"p1","name":"One","avatar":"a<&>"}`, gameKey},
		{"POST", "/v1/leagues/weekly/join", `{"player_id":"p2","name":"Zwei \u00fc"}`, gameKey},
		{"POST", "/v1/leagues/weekly/join", `{"player_id":"p1","name":"One again"}`, gameKey},
		{"POST", "/v1/leagues/weekly/scores", `{"player_id":"p1","value":5,"request_id":"r1"}`, gameKey},
		{"POST", "/v1/leagues/weekly/scores", `{"player_id":"p1","value":5,"request_id":"r1"}`, gameKey},
		{"POST", "/v1/leagues/weekly/scores", `{"player_id":"p2","value":2000}`, gameKey},
		{"POST", "/v1/leagues/weekly/scores/batch", `{"writes":[{"player_id":"p2","value":3},{"player_id":"nobody","value":1}]}`, gameKey},
		{"POST", "/v1/leagues/weekly/standings", `{"player_ids":["p1","p2","nobody"]}`, gameKey},
		{"GET", "/v1/leagues/weekly/boards/bronze-1", "", gameKey},
		{"GET", "/v1/leagues/weekly/boards/bronze-1?period=" + firstPeriod, "", gameKey},
		{"GET", "/v1/leagues/weekly/players/p1", "", gameKey},
		{"GET", "/v1/leagues/weekly", "", gameKey},
		{"GET", "/v1/leagues", "", adminKey},
		{"GET", "/v1/admin/leagues/weekly/settlements?limit=1", "", adminKey},
		{"GET", "/openapi.yaml", "", noKey},
		// refused
		{"POST", "/v1/leagues/weekly/scores", `{"player_id":"p1","value":1}`, noKey},
		{"POST", "/v1/leagues/weekly/scores", `{"player_id":"p1","value":1}`, "wrong-key-0123456789"},
		{"POST", "/v1/admin/leagues/weekly/settle", "", gameKey},
		{"POST", "/v1/leagues/weekly/scores", `{"player_id":"p1","value":1,"extra":true}`, gameKey},
		{"POST", "/v1/leagues/weekly/scores", `{"player_id":"p1","value":`, gameKey},
		{"POST", "/v1/leagues/weekly/scores", "", gameKey},
		{"POST", "/v1/leagues/nope/scores", `{"player_id":"p1","value":1}`, gameKey},
		{"GET", "/v1/leagues/weekly/scores", "", gameKey},
		{"DELETE", "/v1/leagues/weekly", "", gameKey},
		{"GET", "/v1/nowhere", "", gameKey},
		{"GET", "/v1/leagues//weekly", "", gameKey},
		{"GET", "/v1/leagues/weekly/../weekly", "", gameKey},
		{"GET", "/v1/leagues/weekly/players/" + strings.Repeat("x", 200), "", gameKey},
	} {
		name := rq.method + " " + rq.path
		want, got := direct.do(rq.method, rq.path, rq.body, rq.key), served.do(rq.method, rq.path, rq.body, rq.key)
		if got.Code != want.Code {
			t.Errorf("%s: status %d over HTTP, %d from the handler: %s", name, got.Code, want.Code, got.Body)
			continue
		}
		for _, h := range []string{"Content-Type", "Allow", "WWW-Authenticate"} {
			if g, w := got.Header().Get(h), want.Header().Get(h); g != w {
				t.Errorf("%s: %s %q over HTTP, %q from the handler", name, h, g, w)
			}
		}
		if got.Body.String() != want.Body.String() {
			t.Errorf("%s: body over HTTP\n%s\nfrom the handler\n%s", name, got.Body, want.Body)
		}
	}
}

// waitStoreChecked probes /readyz until its store has answered a ping.
func waitStoreChecked(t *testing.T, f *fixture) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		body := f.do("GET", "/readyz", "", noKey).Body.String()
		if !strings.Contains(body, `"store":"unknown"`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz still says %s after 10 s", body)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestHTTPServerErrorsShortenWhatTheyEcho: an error names the path, method
// or request target it refused, shortened (the request line may be 16 KiB),
// and a path as sent, so decoded control characters never reach a client
// that logs the message.
func TestHTTPServerErrorsShortenWhatTheyEcho(t *testing.T) {
	f := onMini(t)
	f.serve()
	long := strings.Repeat("A", 10000)
	for _, c := range []struct {
		name, request string
		status        int
		message       string
	}{
		{"long path", "GET /" + long + " HTTP/1.1\r\nHost: x\r\n\r\n", 404, "no route GET /AAAA"},
		{"control characters in the path", "GET /%1b%5b31mX%0aY HTTP/1.1\r\nHost: x\r\n\r\n", 404, "no route GET /%1b%5b31mX%0aY"},
		{"long method", strings.Repeat("M", 8000) + " /v1/leagues HTTP/1.1\r\nHost: x\r\n\r\n", 405, "method MMMM"},
		{"long malformed target", "GET /%zz" + long + " HTTP/1.1\r\nHost: x\r\n\r\n", 400, "400 Bad Request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := rawRequest(t, f.base, c.request)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status || !strings.Contains(string(body), c.message) {
				t.Fatalf("status %d, want %d saying %q: %.300s", resp.StatusCode, c.status, c.message, body)
			}
			if len(body) > 400 || strings.Contains(string(body), `\u001b`) {
				t.Fatalf("%d bytes: %.300s", len(body), body)
			}
		})
	}
}

// levels is a slog.Handler counting records by level.
type levels struct {
	mu sync.Mutex
	n  map[slog.Level]int
}

func (l *levels) Enabled(context.Context, slog.Level) bool { return true }
func (l *levels) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *levels) WithGroup(string) slog.Handler            { return l }
func (l *levels) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = map[slog.Level]int{}
	}
	l.n[r.Level]++
	return nil
}

func (l *levels) count(level slog.Level) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[level]
}

// rawRequest writes request on a new connection and reads the response.
func rawRequest(t *testing.T, base, request string) *http.Response {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	testsvc.Must(t, err, "dial")
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	// Write while reading: the server may answer before taking it all.
	go io.WriteString(c, request)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	testsvc.Must(t, err, "reading the response")
	return resp
}

// TestHTTPServerShutdownFinishesRequests: Shutdown stops taking
// connections but lets a request in flight finish with its reply.
func TestHTTPServerShutdownFinishesRequests(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"done":true}`)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testsvc.Must(t, err, "listen")
	srv := api.NewHTTPServer(h, api.ServeOptions{Logger: slog.New(slog.DiscardHandler)})
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	type result struct {
		status int
		body   string
		err    error
	}
	got := make(chan result, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/slow")
		if err != nil {
			got <- result{err: err}
			return
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- result{resp.StatusCode, string(b), err}
	}()
	<-entered
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		shut <- srv.Shutdown(ctx)
	}()
	if err := <-served; err != nil {
		t.Fatalf("Serve after Shutdown: %v, want nil", err)
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Fatal("a new connection was accepted after Shutdown")
	}
	close(release)
	if r := <-got; r.err != nil || r.status != 200 || r.body != `{"done":true}` {
		t.Fatalf("request in flight: %d %q %v, want 200 and its body", r.status, r.body, r.err)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

// TestHTTPServerPanickingRawRoute: a panic outside the JSON routes (which
// recover their own) is a 500 on that request only.
func TestHTTPServerPanickingRawRoute(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /boom", func(http.ResponseWriter, *http.Request) { panic("boom") })
	mux.HandleFunc("GET /ok", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testsvc.Must(t, err, "listen")
	srv := api.NewHTTPServer(mux, api.ServeOptions{Logger: slog.New(slog.DiscardHandler)})
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	base := "http://" + ln.Addr().String()
	resp, err := http.Get(base + "/boom")
	testsvc.Must(t, err, "GET /boom")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.Contains(string(b), `"code":"internal"`) {
		t.Fatalf("GET /boom: %d %s, want a 500 internal error", resp.StatusCode, b)
	}
	resp, err = http.Get(base + "/ok")
	testsvc.Must(t, err, "GET /ok")
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "ok" || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("GET /ok: %d %q %q, want 200 ok, sniffed as text", resp.StatusCode, b, resp.Header.Get("Content-Type"))
	}
}

// TestHTTPServerTrailersAreNotHeaders: a chunked body's trailers stay out of
// the request's headers, as net/http keeps them: a key sent as a trailer,
// which a gateway checking headers would not see, is no key.
func TestHTTPServerTrailersAreNotHeaders(t *testing.T) {
	f := onMini(t)
	f.serve()
	f.join("p1")
	chunked := func(headers, trailers string) *http.Response {
		body := `{"player_id":"p1","value":1}`
		return rawRequest(t, f.base, "POST /v1/leagues/weekly/scores HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
			headers+"Transfer-Encoding: chunked\r\n\r\n"+fmt.Sprintf("%x\r\n%s\r\n0\r\n", len(body), body)+trailers+"\r\n")
	}
	for _, c := range []struct {
		name, headers, trailers string
		status                  int
	}{
		{"key only in a trailer", "", "X-API-Key: " + gameKey + "\r\n", http.StatusUnauthorized},
		{"declared trailer", "Trailer: X-API-Key\r\n", "X-API-Key: " + gameKey + "\r\n", http.StatusUnauthorized},
		{"key in the headers, another in a trailer", "X-API-Key: " + gameKey + "\r\n", "X-API-Key: wrong-key-0123456789\r\n", http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := chunked(c.headers, c.trailers)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, body)
			}
		})
	}
	if st := f.must("GET", "/v1/leagues/weekly/players/p1", ""); st["score"] != 1.0 {
		t.Fatalf("score %v after one accepted write of 1", st["score"])
	}
}

// TestHTTPServerWaitsOutOfFileDescriptors: an accept that fails for want
// of file descriptors (too many connections open) is retried; the server
// does not stop serving.
func TestHTTPServerWaitsOutOfFileDescriptors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testsvc.Must(t, err, "listen")
	srv := api.NewHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }), api.ServeOptions{Logger: slog.New(&levels{})})
	served := make(chan error, 1)
	go func() { served <- srv.Serve(&exhaustedListener{Listener: ln, fail: 3}) }()
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	resp := rawRequest(t, "http://"+ln.Addr().String(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if body, _ := io.ReadAll(resp.Body); string(body) != "ok" {
		t.Fatalf("reply %q after accepts that ran out of file descriptors", body)
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned: %v", err)
	default:
	}
}

// exhaustedListener fails its first accepts as a process out of file
// descriptors does.
type exhaustedListener struct {
	net.Listener
	fail int
}

func (l *exhaustedListener) Accept() (net.Conn, error) {
	if l.fail > 0 {
		l.fail--
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// TestHTTPServerTargetsWithoutAPath: request targets that name no path (a
// CONNECT's host:port, an absolute URL without one) get this API's JSON
// 404, not net/http's plain-text page or HTML redirect.
func TestHTTPServerTargetsWithoutAPath(t *testing.T) {
	f := onMini(t)
	f.serve()
	for _, request := range []string{
		"CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n",
		"GET http://x HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST http://x HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
	} {
		resp := rawRequest(t, f.base, request)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "application/json" ||
			!strings.Contains(string(body), `"code":"not_found"`) || !strings.Contains(string(body), "names no path") {
			t.Errorf("%q: %d %q %s, want the JSON 404", strings.SplitN(request, "\r\n", 2)[0], resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
}
