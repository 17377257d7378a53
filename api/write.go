package api

import (
	"net/http"
	"strconv"

	"github.com/league-engine/league/league"
)

// writeShape names the fields of a write: who is "player_id" in a
// league's score write and "member" in a leaderboard's; group, when not
// empty, is a field every write must have ("leaderboard", in a batch over
// several leaderboards); origin writes also take "actor", "channel" and
// "terminal" (leaderboards' rate limits).
type writeShape struct {
	who, group string
	origin     bool
}

var (
	playerWriteShape = writeShape{who: "player_id"}
	memberWriteShape = writeShape{who: "member", origin: true}
	boardWriteShape  = writeShape{who: "member", group: "leaderboard", origin: true}
)

// writeRequest is one write, {"<who>","value","request_id"} (and
// "<group>"). It is the body of POST .../scores and an element of a batch.
// value is the raw token until scoreValue reads it, nil when missing; it
// points into the pooled body buffer, so fields() must run before
// decodeBody returns.
type writeRequest struct {
	shape                    writeShape
	who, requestID, group    *string
	actor, channel, terminal *string
	value                    []byte
}

// writeFields are a decoded write's fields.
type writeFields struct {
	who       string
	value     int64
	requestID string
	group     string // "" unless the shape has a group
	// actor, channel, terminal: "" unless the shape has them and the write
	// names them
	actor, channel, terminal string
}

// decode decodes the object; prefix names the element of a batch in
// errors ("writes[3].").
func (req *writeRequest) decode(d *decoder, what, prefix string) error {
	return d.object(what, func(field []byte) error {
		switch f := string(field); {
		case f == req.shape.who:
			return d.string(prefix+f, &req.who)
		case f == req.shape.group && f != "":
			return d.string(prefix+f, &req.group)
		case f == "request_id":
			return d.string(prefix+"request_id", &req.requestID)
		case req.shape.origin && f == "actor":
			return d.string(prefix+f, &req.actor)
		case req.shape.origin && f == "channel":
			return d.string(prefix+f, &req.channel)
		case req.shape.origin && f == "terminal":
			return d.string(prefix+f, &req.terminal)
		case f == "value":
			if req.value != nil {
				return invalid(prefix+"value", "given twice")
			}
			var err error
			req.value, err = d.number(prefix + "value")
			return err
		}
		return unknownField(prefix, field)
	})
}

// fields checks the fields a write must have and returns them.
func (req *writeRequest) fields(prefix string) (f writeFields, err error) {
	if req.shape.group != "" {
		if f.group, err = required(prefix+req.shape.group, req.group); err != nil {
			return f, err
		}
	}
	if f.who, err = required(prefix+req.shape.who, req.who); err != nil {
		return f, err
	}
	if f.value, err = scoreValue(prefix+"value", req.value); err != nil {
		return f, err
	}
	f.requestID = optionalString(req.requestID)
	f.actor, f.channel, f.terminal = optionalString(req.actor), optionalString(req.channel), optionalString(req.terminal)
	return f, nil
}

// buildWrite makes a product's write of a decoded one, with the scope its
// request id belongs to (the caller's key name).
type buildWrite[T any] func(f writeFields, scope string) T

// readWrite reads the body of a single write (a league's score write, a
// leaderboard's write), its request id in the caller's scope.
func readWrite[T any](r *http.Request, shape writeShape, caller *Key, build buildWrite[T]) (w T, err error) {
	err = decodeBody(r, false, func(d *decoder) (err error) {
		w, err = decodeWrite(d, shape, func(f writeFields) T { return build(f, caller.Name) })
		return err
	})
	return w, err
}

// readBatch reads the body of a batch, {"writes":[...]}, each write's
// request id in the caller's scope.
func readBatch[T any](r *http.Request, shape writeShape, caller *Key, build buildWrite[T]) ([]T, error) {
	var writes *[]T
	if err := decodeBody(r, false, func(d *decoder) (err error) {
		writes, err = decodeBatch(d, shape, func(f writeFields) T { return build(f, caller.Name) })
		return err
	}); err != nil {
		return nil, err
	}
	if writes == nil {
		return nil, invalid("writes", "required")
	}
	return *writes, nil
}

// decodeWrite decodes the body of a single write into a T made by build.
func decodeWrite[T any](d *decoder, shape writeShape, build func(writeFields) T) (T, error) {
	req := writeRequest{shape: shape}
	var zero T
	if err := req.decode(d, "body", ""); err != nil {
		return zero, err
	}
	f, err := req.fields("")
	if err != nil {
		return zero, err
	}
	return build(f), nil
}

// decodeBatch decodes {"writes":[...]}, at most league.MaxBatch of them; a
// malformed element fails the whole body, naming it ("writes[3].value").
// nil: the body had no writes field.
func decodeBatch[T any](d *decoder, shape writeShape, build func(writeFields) T) (*[]T, error) {
	var writes *[]T
	err := d.object("body", func(field []byte) error {
		if string(field) != "writes" {
			return unknownField("", field)
		}
		if writes != nil {
			return invalid("writes", "given twice")
		}
		ws := []T{}
		writes = &ws
		return d.array("writes", func(i int) error {
			if i == league.MaxBatch {
				return invalid("writes", "more than %d writes; send at most %d a batch", league.MaxBatch, league.MaxBatch)
			}
			what := "writes[" + strconv.Itoa(i) + "]"
			item := writeRequest{shape: shape}
			if err := item.decode(d, what, what+"."); err != nil {
				return err
			}
			f, err := item.fields(what + ".")
			ws = append(ws, build(f))
			*writes = ws
			return err
		})
	})
	return writes, err
}
