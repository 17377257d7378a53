// Package keyspace builds the parts of Redis keys both products share: the
// prefix every key of one league or leaderboard starts with, which carries
// its id as the hash tag (so all the keys one script touches share a Redis
// Cluster slot), and the key of a remembered request id.
package keyspace

// Product marks whose keys a prefix starts: a league's (no mark: the
// layout leagues have had from the start) or a leaderboard's ("lb").
type Product string

const (
	League      Product = ""
	Leaderboard Product = "lb"
)

// Prefix is <ns>:{id}: for a league and <ns>:<product>:{id}: otherwise.
// ns and id carry no braces (config refuses them), so the tag is id.
func Prefix(ns string, p Product, id string) string {
	if p == League {
		return ns + ":{" + id + "}:"
	}
	return ns + ":" + string(p) + ":{" + id + "}:"
}

// Request is the key of a request id's stored result under prefix:
// q:<id> for a caller without a name, q:<scope>:<id> for one with (an API
// key's name, which holds no colon). An unnamed caller's id may look like a
// named one's (a:r1), so one league's or leaderboard's writes should come
// from named callers or unnamed ones, not both: the API names every caller
// when keys are configured and none when not.
func Request(prefix, scope, id string) string { return byRequest(prefix, "q:", scope, id) }

// Reservation is the key under which a sharded leaderboard records the
// rate-limit units a write's request id took before the write
// (leaderboard/reserve.go): rv:<id> or rv:<scope>:<id>, named as Request's.
func Reservation(prefix, scope, id string) string { return byRequest(prefix, "rv:", scope, id) }

func byRequest(prefix, kind, scope, id string) string {
	if scope == "" {
		return prefix + kind + id
	}
	return prefix + kind + scope + ":" + id
}
