package testsvc

import (
	"strings"
	"sync"
)

// Log collects what concurrent writers log (handlers, a child process's
// output) for a test to read while they go on.
type Log struct {
	mu sync.Mutex
	sb strings.Builder
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sb.Write(p)
}

func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sb.String()
}
