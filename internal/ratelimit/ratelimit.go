// Package ratelimit holds what both products' rate limits share outside
// Lua (common.lua's limits section holds the rest): how a limit is named,
// and reading its counters.
package ratelimit

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// Name is a limit's name: the one given, or its dimensions and window
// joined by "-" ("actor-member-day"). The name keys the limit's counters,
// so renaming a limit starts it afresh. An error says why a name is not
// 1-32 characters of a-z, 0-9, _ and -.
func Name[D ~string](given string, by []D, per string) (string, error) {
	name := given
	if name == "" {
		parts := make([]string, 0, len(by)+1)
		for _, d := range by {
			parts = append(parts, string(d))
		}
		name = strings.Join(append(parts, per), "-")
	}
	if !namePattern.MatchString(name) {
		return name, fmt.Errorf("%q is not 1-32 characters of a-z, 0-9, _ and -", name)
	}
	return name, nil
}

// Counts reads counters, 0 for one that does not exist (its window has
// seen no write). The keys must share a hash slot on Redis Cluster.
func Counts(ctx context.Context, rdb redis.Cmdable, keys []string) ([]int64, error) {
	vals, err := rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(vals))
	for i, v := range vals {
		if s, ok := v.(string); ok {
			out[i], _ = strconv.ParseInt(s, 10, 64)
		}
	}
	return out, nil
}
