package client

// The API's input limits (league/validate.go), checked before sending so a
// call the API would refuse costs no round trip; the messages are the
// API's.
const (
	MaxBatch     = 1000 // writes (or ids) in one batch call
	MaxIDLen     = 64   // a player, member or request id
	MaxCatalog   = 10000
	maxPathIDLen = 32 // a league or leaderboard id
)

// checkID accepts 1..max bytes of printable ASCII without spaces.
func checkID(field, v string, max int) *Error {
	if v == "" {
		return invalid(field, "must not be empty")
	}
	if len(v) > max {
		return invalid(field, "is %d bytes, at most %d", len(v), max)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c <= ' ' || c > '~' {
			return invalid(field, "byte %d (%q) is not printable ASCII without spaces", i, v[i:i+1])
		}
	}
	return nil
}

// checkPathID checks an id that travels as a path segment: no URL can
// name "." or ".." (clients and servers remove dot segments).
func checkPathID(field, v string, max int) *Error {
	if v == "." || v == ".." {
		return invalid(field, "%q cannot be a URL path segment", v)
	}
	return checkID(field, v, max)
}

// checkBatch refuses a batch the API would: more than MaxBatch items.
func checkBatch(field string, n int) *Error {
	if n > MaxBatch {
		return invalid(field, "more than %d; send at most %d a batch (ScoreMany and WriteMany split larger ones)", MaxBatch, MaxBatch)
	}
	return nil
}

// firstErr returns the first non-nil of errs as an error (a nil *Error is
// no error).
func firstErr(errs ...*Error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
