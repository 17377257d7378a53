package connect

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// settings are the values of a REDIS_URL that go-redis takes without a word
// and then misbehaves with, gathered from either kind of client's options.
type settings struct {
	db, protocol, retries, redirects int
	counts                           []count
	timeouts                         []timeout
}

type count struct {
	name  string
	value int
	min   int // -1 where go-redis reads it as "none"
}

type timeout struct {
	name  string
	value time.Duration
}

func singleSettings(o *redis.Options) settings {
	return settings{
		db: o.DB, protocol: o.Protocol, retries: o.MaxRetries,
		counts: []count{{"pool_size", o.PoolSize, 0}, {"min_idle_conns", o.MinIdleConns, 0}, {"max_idle_conns", o.MaxIdleConns, 0},
			{"max_active_conns", o.MaxActiveConns, 0}, {"max_concurrent_dials", o.MaxConcurrentDials, 0},
			{"pipeline_pool_size", o.PipelinePoolSize, -1}, {"pipeline_read_buffer_size", o.PipelineReadBufferSize, 0},
			{"pipeline_write_buffer_size", o.PipelineWriteBufferSize, 0}},
		timeouts: []timeout{{"dial_timeout", o.DialTimeout}, {"read_timeout", o.ReadTimeout},
			{"write_timeout", o.WriteTimeout}, {"pool_timeout", o.PoolTimeout}},
	}
}

func clusterSettings(o *redis.ClusterOptions) settings {
	return settings{
		protocol: o.Protocol, retries: o.MaxRetries, redirects: o.MaxRedirects,
		counts: []count{{"pool_size", o.PoolSize, 0}, {"min_idle_conns", o.MinIdleConns, 0}, {"max_idle_conns", o.MaxIdleConns, 0},
			{"max_active_conns", o.MaxActiveConns, 0}, {"max_concurrent_dials", o.MaxConcurrentDials, 0},
			{"pipeline_pool_size", o.PipelinePoolSize, -1}, {"pipeline_read_buffer_size", o.PipelineReadBufferSize, 0},
			{"pipeline_write_buffer_size", o.PipelineWriteBufferSize, 0}},
		timeouts: []timeout{{"dial_timeout", o.DialTimeout}, {"read_timeout", o.ReadTimeout},
			{"write_timeout", o.WriteTimeout}, {"pool_timeout", o.PoolTimeout}},
	}
}

// check refuses what go-redis would accept and then get wrong:
//   - max_retries or max_redirects below -1: no command is sent, and no
//     error said;
//   - a database below 0: go-redis uses database 0, another league's data,
//     or none, and the hints then send operators to restore the wrong one;
//   - a protocol other than 2 or 3;
//   - a negative pool size or limit (pool_size=-1 panics), or one past
//     2^31-1 (a panic too);
//   - a timeout of 0 or less, which go-redis reads as none: a call would
//     wait forever on a Redis that stopped answering, instead of the 503
//     docs/operations.md promises.
func (s settings) check() error {
	switch {
	case s.retries < -1:
		return fmt.Errorf("REDIS_URL: max_retries=%d: go-redis sends nothing below -1; use -1 (the default: none) or more", s.retries)
	case s.redirects < -1:
		return fmt.Errorf("REDIS_URL: max_redirects=%d: go-redis sends nothing below -1; use -1 (none) or more", s.redirects)
	case s.db < 0:
		return fmt.Errorf("REDIS_URL: database %d: databases are numbered from 0", s.db)
	case s.protocol != 0 && s.protocol != 2 && s.protocol != 3:
		return fmt.Errorf("REDIS_URL: protocol=%d: Redis speaks RESP 2 or 3", s.protocol)
	}
	for _, c := range s.counts {
		if c.value < c.min || c.value > math.MaxInt32 {
			return fmt.Errorf("REDIS_URL: %s=%d: must be from %d to %d (0: go-redis's default)", c.name, c.value, c.min, math.MaxInt32)
		}
	}
	for _, t := range s.timeouts {
		if t.value < 0 {
			return fmt.Errorf("REDIS_URL: %s: 0 or less means no timeout to go-redis, and a call would wait as long as "+
				"a Redis that stopped answering does; give a positive duration, or leave it out for the default", t.name)
		}
	}
	return nil
}

// checkDatabase refuses a REDIS_URL that names its database twice, path and
// db=, differently (go-redis takes db= without a word), or names one for
// Redis Cluster, which has database 0 only (go-redis ignores it): either
// would put the engine on another database than the operator reads, and
// its hints would send them to restore a league into the wrong one.
func checkDatabase(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return nil // go-redis's parser says what is wrong
	}
	dbs := u.Query()["db"]
	if len(dbs) > 1 {
		return fmt.Errorf("REDIS_URL: db= is given %d times (go-redis takes the last); give it once", len(dbs))
	}
	query := strings.Join(dbs, "")
	path := strings.Trim(u.Path, "/") // a unix:// socket's path names no database
	switch {
	case u.Scheme == "redis+cluster" && (path != "" || query != ""):
		return fmt.Errorf("REDIS_URL: Redis Cluster has database 0 only; remove the database from the URL")
	case (u.Scheme == "redis" || u.Scheme == "rediss") && path != "" && query != "" && path != query:
		return fmt.Errorf("REDIS_URL: the path names database %s and db= names %s; give one", path, query)
	}
	return nil
}
