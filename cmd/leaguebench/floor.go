package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// The floors: what an operation costs at the least on this machine, with
// none of the product's work, measured in the same run as the product so
// that a target in microseconds can be read against what the machine and
// the stack allow (issue #27).
//
//   - httpfloor: the score workload's requests, byte for byte, sent to
//     net/http's server in a process of its own (this binary, started
//     as "leaguebench floor-server") whose handler reads the body, decodes
//     its JSON with encoding/json and writes a reply the size of a score
//     reply. Its CPU per request, read from its /metrics like a separate
//     leagued's, is the least any leagued on net/http can spend on a
//     score write on this machine, whatever its engine does.
//   - zaddfloor: one EVALSHA of a script that does only the ZADD XX INCR
//     every score write must make, on a board of 100 like a league's,
//     beside the trivial EVALSHA: the least Redis can spend on a score
//     write, as a ratio to the trivial script.

// floorServerArg, as the first argument, makes leaguebench the floor
// server instead of the harness.
const floorServerArg = "floor-server"

// floorReply is what the floor server answers: a score reply's shape and
// size.
var floorReply = []byte(`{"league":"weekly","period":"20261123T000000Z","tier":"bronze","board":"bronze-1",` +
	`"score":1,"rank":1,"board_size":100,"zone":"promote","replayed":false}`)

// floorHandler does what any JSON route on net/http must: read the body,
// decode it, write a reply. /metrics gives the process's CPU seconds in the
// Prometheus text format leagued's /metrics uses (leaguedcpu.go).
func floorHandler(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/metrics" {
		fmt.Fprintf(w, "%s %g\n", cpuMetric, processCPU())
		return
	}
	var write struct {
		PlayerID  string `json:"player_id"`
		Value     int64  `json:"value"`
		RequestID string `json:"request_id"`
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err == nil && len(body) > 0 {
		err = json.Unmarshal(body, &write)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(floorReply)
}

// serveFloor is the floor server's process: it serves on a loopback port,
// prints the port's URL as its first line on stdout, and exits when stdin
// closes (the harness ended, however it ended).
func serveFloor(stdin io.Reader, stdout io.Writer) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(floorHandler), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if _, err := fmt.Fprintf(stdout, "http://%s\n", ln.Addr()); err != nil {
		return err
	}
	go func() {
		io.Copy(io.Discard, stdin)
		srv.Close()
	}()
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// floor is the floor server the harness started, and the routes and CPU
// reader the httpfloor rows use.
type floor struct {
	cmd    *exec.Cmd
	stdin  io.Closer
	target *httpTarget
	cpu    *leaguedCPU
}

// startFloor starts the floor server: this binary, in a process of its own.
func startFloor(client *http.Client, log *slog.Logger) (*floor, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("floor server: %w", err)
	}
	cmd := exec.Command(exe, floorServerArg)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("floor server: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("floor server: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("floor server: %w", err)
	}
	f := &floor{cmd: cmd, stdin: stdin}
	first := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		first <- strings.TrimSpace(line)
	}()
	var url string
	select {
	case url = <-first:
	case <-time.After(10 * time.Second):
	}
	if !strings.HasPrefix(url, "http://") {
		cmd.Process.Kill()
		f.stop()
		return nil, fmt.Errorf("floor server (%s %s) did not say where it serves: %q", exe, floorServerArg, url)
	}
	if f.target, err = newHTTPRoutes(client, url, "/v1/leagues/floor", ""); err != nil {
		f.stop()
		return nil, err
	}
	f.cpu = newLeaguedCPU(url, log)
	return f, nil
}

// stop closes the floor server's stdin, which ends it, and waits for it.
func (f *floor) stop() error {
	f.stdin.Close()
	err := f.cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) && !exit.Exited() {
		return nil // killed by startFloor
	}
	return err
}

// zaddFloorScript is the one command every score write makes.
var zaddFloorScript = redis.NewScript(`return redis.call('ZADD', KEYS[1], 'XX', 'INCR', 1, ARGV[1])`)

// zaddOnly is the zaddfloor op: the baselines' board of 100, a member at
// random, one plain round trip per call as the trivial EVALSHA's.
func (b *baselines) zaddOnly() op {
	keys := []string{b.board}
	return func(ctx context.Context, w *worker) (int, error) {
		member := baselineMembers[w.rng.IntN(baselineBoard)]
		z, err := zaddFloorScript.EvalSha(ctx, b.rdb, keys, member).Result()
		if err == nil && z == nil {
			err = fmt.Errorf("%s is not on the baseline board", member)
		}
		return one(err)
	}
}
