package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// wireConn is a minimal HTTP/1.1 client connection for the load: kept
// alive, one per worker, requests written straight into its buffer and
// replies read by Content-Length (leagued always sets it). net/http's
// client costs about as much CPU per request as the server it measures
// (two goroutines per connection, headers in maps, several allocations);
// on a 2-core box shared with the server and Redis the load generator must
// not be what limits the figures. wrk works the same way. -http-client
// net/http switches back for comparison.
type wireConn struct {
	conn net.Conn
	r    *bufio.Reader
	w    *bufio.Writer
}

// wire sends one request on the worker's connection (dialled on first use,
// again after an error) and reads the reply body into w.resp.
func (t *httpTarget) wire(ctx context.Context, w *worker, method, path string, body []byte) (int, error) {
	if w.conn == nil {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", t.host)
		if err != nil {
			return 0, err
		}
		w.conn = &wireConn{conn: c, r: bufio.NewReaderSize(c, 32<<10), w: bufio.NewWriterSize(c, 8<<10)}
	}
	c := w.conn
	deadline := time.Now().Add(30 * time.Second)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	c.conn.SetDeadline(deadline)
	status, err := c.roundTrip(t, w, method, path, body)
	if err != nil {
		c.conn.Close()
		w.conn = nil
	}
	return status, err
}

func (c *wireConn) roundTrip(t *httpTarget, w *worker, method, path string, body []byte) (int, error) {
	b := c.w
	b.WriteString(method)
	b.WriteByte(' ')
	b.WriteString(t.prefix)
	b.WriteString(path)
	b.WriteString(" HTTP/1.1\r\nHost: ")
	b.WriteString(t.host)
	if t.apiKey != "" {
		b.WriteString("\r\nX-API-Key: ")
		b.WriteString(t.apiKey)
	}
	if body != nil {
		b.WriteString("\r\nContent-Type: application/json\r\nContent-Length: ")
		b.Write(strconv.AppendInt(w.num[:0], int64(len(body)), 10))
	}
	b.WriteString("\r\n\r\n")
	b.Write(body)
	if err := b.Flush(); err != nil {
		return 0, err
	}

	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, fmt.Errorf("bad status line %q", line)
	}
	length, keep := -1, true
	for {
		h, err := c.r.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		if len(h) <= 2 { // the blank line
			break
		}
		name, value, ok := bytes.Cut(bytes.TrimRight(h, "\r\n"), []byte(":"))
		if !ok {
			continue
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil {
				return 0, fmt.Errorf("bad Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("Connection")) && bytes.EqualFold(value, []byte("close")):
			keep = false
		}
	}
	if length < 0 {
		return 0, fmt.Errorf("HTTP %d without Content-Length", status)
	}
	w.resp.Reset()
	w.resp.Grow(length)
	if _, err := w.resp.ReadFrom(&limited{c.r, length}); err != nil {
		return 0, err
	}
	if w.resp.Len() != length {
		return 0, fmt.Errorf("short body: %d of %d bytes", w.resp.Len(), length)
	}
	if !keep {
		return status, errClosed
	}
	return status, nil
}

// errClosed makes the caller redial after a reply that closed the
// connection; the reply itself is good.
var errClosed = fmt.Errorf("server closed the connection")

// limited reads at most n bytes from r (io.LimitReader without the
// allocation of its interface value on every call).
type limited struct {
	r *bufio.Reader
	n int
}

func (l *limited) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, io.EOF
	}
	if len(p) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= n
	return n, err
}
