package api

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/league"
)

// Limits of the HTTP server, per connection.
const (
	ReadHeaderTimeout = 10 * time.Second // a request line and headers, from the first byte
	ReadTimeout       = 30 * time.Second // a whole request, headers and body
	WriteTimeout      = 30 * time.Second // a whole response, from the end of the request's headers
	IdleTimeout       = 2 * time.Minute  // a kept-alive connection waiting for its next request
	// MaxHeaderBytes bounds a request's line and headers (431 past it;
	// net/http allows 4 KiB of slack on top).
	MaxHeaderBytes = 16 << 10
)

// Connection caps of ServeOptions left at zero.
const (
	DefaultMaxConnections          = 4096
	DefaultMaxConnectionsPerClient = 256
)

// ServeOptions configure HTTPServer.
type ServeOptions struct {
	// MaxConnections caps the connections open at once (0: the default,
	// -1: no cap); MaxConnectionsPerClient caps them per client address
	// (an IPv6 client's /64). A connection past a cap is closed as soon as
	// it is accepted (connlimit.go).
	MaxConnections, MaxConnectionsPerClient int
	// H2C serves HTTP/2 without TLS (prior knowledge or Upgrade) beside
	// HTTP/1.1.
	H2C bool
	// Logger receives the server's own messages (nil: slog.Default()).
	Logger *slog.Logger
	// Registry receives the connection metrics (nil: none).
	Registry *prometheus.Registry
}

// HTTPServer is leagued's HTTP server: net/http's, with the limits above
// and capped connections. Each request reaches the handler after its
// headers only: the handler checks the key before it reads a body, so a
// caller without a valid key costs no more than its headers.
type HTTPServer struct {
	srv   *http.Server
	conns *connLimits
}

// NewHTTPServer returns a server for h.
func NewHTTPServer(h http.Handler, o ServeOptions) *HTTPServer {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(o.H2C)
	return &HTTPServer{
		conns: newConnLimits(o.MaxConnections, o.MaxConnectionsPerClient, o.Registry),
		srv: &http.Server{
			Handler:           recovering(h, log),
			ReadHeaderTimeout: ReadHeaderTimeout,
			ReadTimeout:       ReadTimeout,
			WriteTimeout:      WriteTimeout,
			IdleTimeout:       IdleTimeout,
			MaxHeaderBytes:    MaxHeaderBytes,
			Protocols:         protocols,
			// OPTIONS * reaches the handler, which answers this API's JSON
			// 400, rather than net/http's empty 200.
			DisableGeneralOptionsHandler: true,
			ErrorLog:                     slog.NewLogLogger(serverLog{log.Handler()}, slog.LevelDebug),
		},
	}
}

// Serve accepts connections on ln until Shutdown, then returns nil. Out of
// file descriptors, it waits for connections to close (net/http retries a
// failing accept).
func (s *HTTPServer) Serve(ln net.Listener) error {
	err := s.srv.Serve(s.conns.listener(ln))
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// recovering answers a panic of h with a JSON 500 (the JSON routes recover
// their own; this is for the raw ones, /metrics and /openapi.yaml) rather
// than net/http's dropped connection. http.ErrAbortHandler still drops it.
func recovering(h http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.Error("api: handler panicked", "method", r.Method, "path", excerpt.Of(r.URL.EscapedPath()), "panic", v)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				b, _ := errorReply{code: league.Internal, message: "internal error"}.appendJSON(nil)
				w.Write(b)
			}
		}()
		h.ServeHTTP(w, r)
	})
}

// Shutdown stops accepting, closes idle connections and waits for requests
// in flight to finish, or for ctx to end.
func (s *HTTPServer) Shutdown(ctx context.Context) error { return s.srv.Shutdown(ctx) }

// serverLog sends net/http's own log lines to slog. Most are about one
// client's connection (a TLS handshake, a malformed request, a reply the
// client did not wait for): debug, so that no client can write a warning per
// request into the operator's log. A failing accept is the server's own
// trouble (net/http logs it at most once a second while it lasts): warn; a
// panic: error.
type serverLog struct{ slog.Handler }

func (h serverLog) Handle(ctx context.Context, r slog.Record) error {
	switch {
	case strings.Contains(r.Message, "Accept error"):
		r.Level = slog.LevelWarn
	case strings.Contains(r.Message, "panic serving"):
		r.Level = slog.LevelError
	}
	r.Message = "api: http server: " + strings.TrimSuffix(r.Message, "\n")
	if !h.Handler.Enabled(ctx, r.Level) {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

// Enabled lets every line through to Handle, which decides its level.
func (serverLog) Enabled(context.Context, slog.Level) bool { return true }
