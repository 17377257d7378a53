//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// findRedis returns the path of redis-server.
func findRedis() (string, error) {
	p, err := exec.LookPath("redis-server")
	if err != nil {
		return "", fmt.Errorf("redis-server is not on PATH")
	}
	return p, nil
}

// startRedis starts a redis-server on a free port of 127.0.0.1 with its files
// in dir and no persistence, and returns it once it answers PING.
func startRedis(ctx context.Context, bin, dir string) (*server, string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	cmd := exec.Command(bin,
		"--bind", "127.0.0.1",
		"--port", strconv.Itoa(port),
		"--dir", dir,
		"--save", "",
		"--appendonly", "no",
		"--daemonize", "no",
	)
	s, err := startServer("redis-server", filepath.Join(dir, "redis.log"), syscall.SIGTERM, cmd)
	if err != nil {
		return nil, "", err
	}
	url := fmt.Sprintf("redis://127.0.0.1:%d/0", port)
	err = s.waitReady(ctx, 20*time.Second, func(ctx context.Context) error { return pingRedis(ctx, url) })
	return s, url, err
}

// pingRedis checks that the Redis at url answers PING.
func pingRedis(ctx context.Context, url string) error {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return err
	}
	opt.MaxRetries, opt.DialerRetries = -1, 1
	c := redis.NewClient(opt)
	defer c.Close()
	return c.Ping(ctx).Err()
}

// quietLogger drops go-redis's own log lines: the runner reports failures
// itself, and a refused dial while redis-server starts is expected.
type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

var redisVersionRE = regexp.MustCompile(`v=(\S+)`)

// redisVersion is the version redis-server reports, or "" if it says none.
func redisVersion(bin string) string {
	out, _ := exec.Command(bin, "--version").Output()
	if m := redisVersionRE.FindSubmatch(out); m != nil {
		return string(m[1])
	}
	return ""
}
