package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/league"
)

// Timeouts of HTTPServer, per connection.
const (
	ReadTimeout  = 30 * time.Second // a whole request, from its first byte
	WriteTimeout = 30 * time.Second // a whole response
	IdleTimeout  = 2 * time.Minute  // a kept-alive connection waiting for its next request
	// MaxHeaderBytes bounds a request's line and headers (431 past it).
	MaxHeaderBytes = 16 << 10
)

// HTTPServer serves a Handler over HTTP/1.1 on fasthttp's server, as
// leagued does. Per request it costs about a sixth less CPU than net/http's
// server, whose cost on a small JSON call is mostly its own: a goroutine
// that watches every connection for the client going away (a read and a
// wake-up per request), a deadline reset at each step, headers in fresh
// maps. That is what held HTTP score writes under the benchmark target
// (BENCHMARKS.md).
//
// The handlers stay net/http handlers, tested as such: each request is
// handed to them as an *http.Request whose strings are copies, so nothing
// a handler keeps points into fasthttp's reused buffers. Differences from
// net/http a client can see: a body is read whole before the handler runs
// (at most MaxBody; past it 413 whatever the route), the request context is
// not cancelled when the client goes away, and malformed requests are
// answered with this API's JSON errors.
type HTTPServer struct {
	fs  *fasthttp.Server
	log *slog.Logger
}

// NewHTTPServer returns a server for h; log receives the server's own
// errors (nil: slog.Default()).
func NewHTTPServer(h http.Handler, log *slog.Logger) *HTTPServer {
	if log == nil {
		log = slog.Default()
	}
	return &HTTPServer{log: log, fs: &fasthttp.Server{
		Handler:      bridge(h, log),
		ErrorHandler: writeTransportError,
		Logger:       fasthttpLogger{log},
		ReadTimeout:  ReadTimeout,
		WriteTimeout: WriteTimeout,
		IdleTimeout:  IdleTimeout,
		// The request line and headers must fit the read buffer.
		ReadBufferSize:     MaxHeaderBytes,
		MaxRequestBodySize: MaxBody,
		// A client that asks before sending a body too large is refused
		// then, not told to go ahead and send it for nothing.
		ExpectHandler: func(ctx *fasthttp.RequestCtx) int {
			if ctx.Request.Header.ContentLength() > MaxBody {
				writeTransportError(ctx, fasthttp.ErrBodyTooLarge)
				return http.StatusRequestEntityTooLarge
			}
			return fasthttp.StatusContinue
		},
		HeaderReceived:        markChunked,
		NoDefaultServerHeader: true,
		NoDefaultContentType:  true,
		CloseOnShutdown:       true,
		// fasthttp's log lines would otherwise quote requests, keys included.
		SecureErrorLogMessage: true,
	}}
}

// Serve accepts connections on ln until Shutdown, then returns nil. Out of
// file descriptors, it waits for connections to close (patientListener).
func (s *HTTPServer) Serve(ln net.Listener) error {
	return s.fs.Serve(patientListener{Listener: ln, log: s.log})
}

// trailerMark is a field markChunked appends to a chunked request's
// headers before its body is read: fasthttp adds the body's trailers after
// the headers, and newRequest keeps what follows the mark out of Header, as
// net/http does. A key sent as a trailer (which a gateway checking headers
// would not see) is no key.
const trailerMark = "X-League-Trailers-Follow"

// markChunked runs once a request's headers are read. For a chunked body,
// it marks where trailers would begin, and if the request also says
// Content-Length, closes the connection after the reply (RFC 9112 6.1): a
// proxy in front that framed the request by its length would read the rest
// of the body as the next request.
func markChunked(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	// A client's own mark would hide the headers after it.
	h.Del(trailerMark)
	if h.ContentLength() != -1 { // not chunked: no trailers
		return fasthttp.RequestConfig{}
	}
	if hasField(h.RawHeaders(), "content-length") {
		h.SetConnectionClose()
	}
	h.Add(trailerMark, "")
	return fasthttp.RequestConfig{}
}

// hasField reports whether raw header lines hold a field named name, in
// any case.
func hasField(raw []byte, name string) bool {
	for line := range bytes.SplitSeq(raw, []byte("\n")) {
		if k, _, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(bytes.TrimSpace(k), []byte(name)) {
			return true
		}
	}
	return false
}

// Shutdown stops accepting, closes idle connections and waits for requests
// in flight to finish, or for ctx to end.
func (s *HTTPServer) Shutdown(ctx context.Context) error { return s.fs.ShutdownWithContext(ctx) }

// bridge runs h on fasthttp's requests.
func bridge(h http.Handler, log *slog.Logger) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		r, err := newRequest(ctx)
		if err != nil {
			writeTransportError(ctx, err)
			return
		}
		w := &responseWriter{ctx: ctx, header: make(http.Header, 4)}
		defer func() {
			if v := recover(); v != nil {
				// api.serve recovers its handlers' panics; this one is a
				// raw route's, or http.ErrAbortHandler: drop the reply and
				// the connection, as net/http does.
				if v != http.ErrAbortHandler {
					log.Error("api: handler panicked", "method", r.Method, "path", r.URL.Path, "panic", v)
				}
				ctx.Response.Reset()
				ctx.SetConnectionClose()
				writeErrorReply(ctx, http.StatusInternalServerError, league.Internal, "internal error")
			}
		}()
		h.ServeHTTP(w, r)
		w.WriteHeader(http.StatusOK) // a handler that wrote nothing: 200, empty
	}
}

// newRequest copies the request out of fasthttp's buffers into an
// *http.Request as net/http's server would build it. The URL is parsed from
// the request target as sent (fasthttp's own URI normalizes paths), so
// serveHTTP answers unclean paths with a 404 as it does under net/http.
func newRequest(ctx *fasthttp.RequestCtx) (*http.Request, error) {
	uri := string(ctx.RequestURI())
	u, err := url.ParseRequestURI(uri)
	if err != nil {
		return nil, &statusError{status: http.StatusBadRequest, err: &league.Error{
			Code: league.Invalid, Message: "malformed request target " + strconv.Quote(excerpt.Of(uri))}}
	}
	r := &http.Request{
		Method:     string(ctx.Method()),
		URL:        u,
		Proto:      string(ctx.Request.Header.Protocol()),
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     make(http.Header, 8),
		Body:       http.NoBody,
		Host:       string(ctx.Host()),
		RemoteAddr: ctx.RemoteAddr().String(),
		RequestURI: uri,
	}
	if r.Proto == "HTTP/1.0" {
		r.ProtoMinor = 0
	}
	fields := r.Header
	for k, v := range ctx.Request.Header.All() {
		switch string(k) { // no allocation: a comparison
		case "Host", "Transfer-Encoding": // net/http moves them out of Header
			continue
		case trailerMark:
			r.Trailer = make(http.Header)
			fields = r.Trailer
			continue
		}
		fields[string(k)] = append(fields[string(k)], string(v))
	}
	if body := ctx.PostBody(); len(body) > 0 {
		// Read during the handler only, so the body need not be copied.
		r.Body, r.ContentLength = readCloser{bytes.NewReader(body)}, int64(len(body))
	}
	return r, nil
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// responseWriter is an http.ResponseWriter onto fasthttp's response. Like
// net/http it takes the headers when the status is written and ignores
// later changes.
type responseWriter struct {
	ctx    *fasthttp.RequestCtx
	header http.Header
	wrote  bool
}

func (w *responseWriter) Header() http.Header { return w.header }

func (w *responseWriter) WriteHeader(status int) {
	if w.wrote {
		return
	}
	w.wrote = true
	resp := &w.ctx.Response
	resp.SetStatusCode(status)
	for k, vs := range w.header {
		if k == "Content-Length" { // fasthttp sets it from the body
			continue
		}
		for _, v := range vs {
			resp.Header.Add(k, v)
		}
	}
}

func (w *responseWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		if w.header.Get("Content-Type") == "" && len(p) > 0 {
			w.header.Set("Content-Type", http.DetectContentType(p)) // as net/http does
		}
		w.WriteHeader(http.StatusOK)
	}
	w.ctx.Response.AppendBody(p) // copies: callers reuse p
	return len(p), nil
}

// writeTransportError answers a request the server could not read, or
// could not hand to the handler, with this API's JSON error.
func writeTransportError(ctx *fasthttp.RequestCtx, err error) {
	if errors.Is(err, fasthttp.ErrBodyTooLarge) {
		err = errTooLarge // as decodeBody answers past MaxBody
	}
	var se *statusError
	var small *fasthttp.ErrSmallBuffer
	var ne net.Error
	switch {
	case errors.As(err, &se):
		writeErrorReply(ctx, se.status, se.err.Code, league.ErrorMessage(se.err))
	case errors.As(err, &small):
		writeErrorReply(ctx, http.StatusRequestHeaderFieldsTooLarge, league.Invalid,
			"headers: the request line and headers are over "+strconv.Itoa(MaxHeaderBytes)+" bytes")
	case errors.As(err, &ne) && ne.Timeout():
		// A body shorter than its Content-Length waits here, and so does a
		// client ending header lines in a bare LF (fasthttp reads headers up
		// to a blank line of CRLFs only): the message names both.
		writeErrorReply(ctx, http.StatusRequestTimeout, league.Invalid,
			"request: not received whole within "+ReadTimeout.String()+
				" (is the body as long as its Content-Length? do header lines end in CRLF?)")
	default:
		// Not err's text: fasthttp's quotes the request, keys included.
		writeErrorReply(ctx, http.StatusBadRequest, league.Invalid, "request: not a well-formed HTTP/1.1 request")
	}
}

func writeErrorReply(ctx *fasthttp.RequestCtx, status int, code league.Code, message string) {
	b, _ := errorReply{code: code, message: message}.appendJSON(nil)
	ctx.SetStatusCode(status)
	ctx.SetContentType("application/json")
	ctx.SetBody(b)
}

// fasthttpLogger sends fasthttp's own messages to slog. A connection that
// ended in error is a client's doing (a malformed request, already answered
// with a 400), so it is logged at debug: at warn, any client could flood the
// log with a line per request. The rest (accept errors, connection limits)
// is the server's own trouble and stays at warn.
type fasthttpLogger struct{ log *slog.Logger }

func (l fasthttpLogger) Printf(format string, args ...any) {
	msg := "api: http server: " + fmt.Sprintf(format, args...)
	if strings.HasPrefix(format, "error when serving connection") {
		l.log.Debug(msg)
		return
	}
	l.log.Warn(msg)
}
