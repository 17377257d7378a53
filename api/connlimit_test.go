package api_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/internal/testsvc"
)

// TestHTTPServerRefusesUnreadableRequests: what net/http's server refuses
// before any handler runs gets its short plain-text answer (it never quotes
// the request, keys included); everything it hands on gets this API's JSON
// errors, a body too large refused on its headers.
func TestHTTPServerRefusesUnreadableRequests(t *testing.T) {
	f := onMini(t)
	f.serve()
	tooBig := `{"player_id":"p1","value":1,"request_id":"` + strings.Repeat("r", api.MaxBody) + `"}`
	for _, c := range []struct {
		name, request string
		status        int
		message       string // of the JSON error; "" for net/http's own plain text
	}{
		{"body over MaxBody", "POST /v1/leagues/weekly/scores HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + gameKey +
			"\r\nContent-Type: application/json\r\nContent-Length: " + fmt.Sprint(len(tooBig)) + "\r\n\r\n" + tooBig,
			413, "body: is over 1048576 bytes"},
		// Refused on its headers, before the client is told to send the body.
		{"100-continue over MaxBody", "POST /v1/leagues/weekly/scores HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + gameKey +
			"\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2000000\r\n\r\n",
			413, "body: is over 1048576 bytes"},
		{"chunked body over MaxBody", "POST /v1/leagues/weekly/scores HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + gameKey +
			"\r\nTransfer-Encoding: chunked\r\n\r\n" + fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(tooBig), tooBig),
			413, "body: is over 1048576 bytes"},
		{"headers over MaxHeaderBytes", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("h", api.MaxHeaderBytes+4096) + "\r\n\r\n",
			431, ""},
		{"not HTTP", "HELLO\r\nAuthorization: Bearer secret\r\n\r\n", 400, ""},
		{"bad request target", "GET /healthz%zz HTTP/1.1\r\nHost: x\r\n\r\n", 400, ""},
		{"compressed body", "POST /v1/leagues/weekly/scores HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + gameKey +
			"\r\nContent-Encoding: gzip\r\nContent-Length: 28\r\n\r\n{\"player_id\":\"p1\",\"value\":1}",
			400, `Content-Encoding: \"gzip\" is not supported`},
		{"OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", 400, "request target: OPTIONS * names no resource"},
		{"HTTP/2 preface without h2c", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400, "request target: PRI * names no resource"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := rawRequest(t, f.base, c.request)
			body, _ := io.ReadAll(resp.Body)
			want := "application/json"
			if c.message == "" {
				want = "text/plain; charset=utf-8"
			}
			if resp.StatusCode != c.status || resp.Header.Get("Content-Type") != want {
				t.Fatalf("status %d %q, want %d %s: %.300s", resp.StatusCode, resp.Header.Get("Content-Type"), c.status, want, body)
			}
			if c.message != "" && (!strings.Contains(string(body), `"code":"invalid"`) || !strings.Contains(string(body), c.message)) {
				t.Fatalf("body %s, want an invalid error saying %q", body, c.message)
			}
			if strings.Contains(string(body), "secret") || len(body) > 300 {
				t.Fatalf("the error quotes the request: %.300s", body)
			}
		})
	}
	// The server goes on serving.
	f.must("GET", "/healthz", "")
}

// TestHTTPServerRefusesKeylessBodiesUnread: a request without a valid key
// is answered on its headers, before its body arrives, and its connection
// closed rather than its body read: a caller without a key costs no more
// than its headers.
func TestHTTPServerRefusesKeylessBodiesUnread(t *testing.T) {
	f := onMini(t)
	f.serve()
	for _, key := range []string{"", "Authorization: Bearer wrong-key-0123456789\r\n"} {
		c, err := net.Dial("tcp", strings.TrimPrefix(f.base, "http://"))
		testsvc.Must(t, err, "dial")
		c.SetDeadline(time.Now().Add(10 * time.Second))
		// Headers announcing a megabyte, and not one byte of it.
		_, err = io.WriteString(c, "POST /v1/leagues/weekly/scores HTTP/1.1\r\nHost: x\r\n"+key+
			"Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n")
		testsvc.Must(t, err, "write")
		r := bufio.NewReader(c)
		resp, err := http.ReadResponse(r, nil)
		testsvc.Must(t, err, "the reply to headers alone")
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != http.StatusUnauthorized || !resp.Close {
			t.Errorf("key %q: status %d, close %v; want 401 and the connection closed", key, resp.StatusCode, resp.Close)
		}
		if _, err := r.ReadByte(); err == nil {
			t.Errorf("key %q: the connection stays open", key)
		}
		c.Close()
	}
}

// TestHTTPServerCapsConnections: past the cap per client address, a new
// connection is closed at once, before anything is read of it; the
// connections within the cap are served, and a place freed is taken again.
// The total cap works the same way; both are counted in the metrics.
func TestHTTPServerCapsConnections(t *testing.T) {
	for _, c := range []struct {
		name  string
		opts  api.ServeOptions
		limit string
	}{
		{"per client", api.ServeOptions{MaxConnectionsPerClient: 2}, "per_client"},
		{"total", api.ServeOptions{MaxConnections: 2, MaxConnectionsPerClient: -1}, "total"},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			c.opts.Registry, c.opts.Logger = reg, slog.New(slog.DiscardHandler)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			testsvc.Must(t, err, "listen")
			srv := api.NewHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }), c.opts)
			go srv.Serve(ln)
			t.Cleanup(func() { srv.Shutdown(context.Background()) })
			addr := ln.Addr().String()

			var open []net.Conn
			for i := range 2 {
				conn, err := net.Dial("tcp", addr)
				testsvc.Must(t, err, "dial %d", i)
				testsvc.Must(t, get(conn), "request on connection %d", i)
				open = append(open, conn)
			}
			over, err := net.Dial("tcp", addr)
			testsvc.Must(t, err, "dial past the cap") // the kernel accepts; the server closes
			if err := get(over); err == nil {
				t.Fatal("a connection past the cap was served")
			}
			over.Close()
			testsvc.Must(t, get(open[0]), "a connection within the cap, after one past it")
			if got := gathered(t, reg, "league_http_connections_refused_total", "limit", c.limit); got != 1 {
				t.Errorf("refused{limit=%s} = %v, want 1", c.limit, got)
			}
			if got := gathered(t, reg, "league_http_connections_open"); got != 2 {
				t.Errorf("open connections %v, want 2", got)
			}

			open[1].Close()
			// The server sees the close when it next reads; then the place is free.
			deadline := time.Now().Add(5 * time.Second)
			for {
				conn, err := net.Dial("tcp", addr)
				testsvc.Must(t, err, "dial after a close")
				err = get(conn)
				conn.Close()
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no place freed 5 s after a connection closed: %v", err)
				}
				time.Sleep(20 * time.Millisecond)
			}
			open[0].Close()
		})
	}
}

// get sends GET / on conn and requires the reply "ok".
func get(conn net.Conn) error {
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return err
	}
	b, _ := io.ReadAll(resp.Body)
	if string(b) != "ok" {
		return fmt.Errorf("reply %q", b)
	}
	return nil
}

// TestHTTPServerH2C: with H2C on, a client speaking HTTP/2 without TLS
// (prior knowledge) is served over HTTP/2, an HTTP/1.1 client as before;
// with it off, HTTP/2 is refused.
func TestHTTPServerH2C(t *testing.T) {
	for _, on := range []bool{true, false} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		testsvc.Must(t, err, "listen")
		srv := api.NewHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Proto) }),
			api.ServeOptions{H2C: on, Logger: slog.New(slog.DiscardHandler)})
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Shutdown(context.Background()) })
		h2 := new(http.Protocols)
		h2.SetUnencryptedHTTP2(true)
		client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Protocols: h2}}
		resp, err := client.Get("http://" + ln.Addr().String() + "/")
		if !on {
			if err == nil {
				resp.Body.Close()
				t.Error("h2c off: an HTTP/2 client was served")
			}
			continue
		}
		testsvc.Must(t, err, "HTTP/2 without TLS")
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "HTTP/2.0" {
			t.Errorf("h2c on: served over %q", b)
		}
		resp = rawRequest(t, "http://"+ln.Addr().String(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		if b, _ := io.ReadAll(resp.Body); string(b) != "HTTP/1.1" {
			t.Errorf("h2c on: an HTTP/1.1 client served over %q", b)
		}
	}
}
