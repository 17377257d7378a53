package api

import (
	"net/http"
	"strconv"

	"github.com/league-engine/league/league"
)

// writeRequest is one write, {"<who>","value","request_id"}: who is
// "player_id" in a league's score write and "member" in a leaderboard's.
// It is the body of POST .../scores and an element of a batch. value is the
// raw token until scoreValue reads it, nil when missing; it points into the
// pooled body buffer, so fields() must run before decodeBody returns.
type writeRequest struct {
	whoField       string
	who, requestID *string
	value          []byte
}

// decode decodes the object; prefix names the element of a batch in
// errors ("writes[3].").
func (req *writeRequest) decode(d *decoder, what, prefix string) error {
	return d.object(what, func(field []byte) error {
		switch string(field) {
		case req.whoField:
			return d.string(prefix+req.whoField, &req.who)
		case "request_id":
			return d.string(prefix+"request_id", &req.requestID)
		case "value":
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
func (req *writeRequest) fields(prefix string) (who string, value int64, requestID string, err error) {
	if who, err = required(prefix+req.whoField, req.who); err != nil {
		return "", 0, "", err
	}
	if value, err = scoreValue(prefix+"value", req.value); err != nil {
		return "", 0, "", err
	}
	return who, value, optionalString(req.requestID), nil
}

// buildWrite makes a product's write of a decoded one: who, its value and
// request id, and the scope its request id belongs to (the caller's key
// name).
type buildWrite[T any] func(who string, value int64, requestID, scope string) T

// readWrite reads the body of a single write (a league's score write, a
// leaderboard's write), its request id in the caller's scope.
func readWrite[T any](r *http.Request, whoField string, caller *Key, build buildWrite[T]) (w T, err error) {
	err = decodeBody(r, false, func(d *decoder) (err error) {
		w, err = decodeWrite(d, whoField, func(who string, v int64, rid string) T { return build(who, v, rid, caller.Name) })
		return err
	})
	return w, err
}

// readBatch reads the body of a batch, {"writes":[...]}, each write's
// request id in the caller's scope.
func readBatch[T any](r *http.Request, whoField string, caller *Key, build buildWrite[T]) ([]T, error) {
	var writes *[]T
	if err := decodeBody(r, false, func(d *decoder) (err error) {
		writes, err = decodeBatch(d, whoField, func(who string, v int64, rid string) T { return build(who, v, rid, caller.Name) })
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
func decodeWrite[T any](d *decoder, whoField string, build func(who string, value int64, requestID string) T) (T, error) {
	req := writeRequest{whoField: whoField}
	var zero T
	if err := req.decode(d, "body", ""); err != nil {
		return zero, err
	}
	who, v, rid, err := req.fields("")
	if err != nil {
		return zero, err
	}
	return build(who, v, rid), nil
}

// decodeBatch decodes {"writes":[...]}, at most league.MaxBatch of them; a
// malformed element fails the whole body, naming it ("writes[3].value").
// nil: the body had no writes field.
func decodeBatch[T any](d *decoder, whoField string, build func(who string, value int64, requestID string) T) (*[]T, error) {
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
			item := writeRequest{whoField: whoField}
			if err := item.decode(d, what, what+"."); err != nil {
				return err
			}
			who, v, rid, err := item.fields(what + ".")
			ws = append(ws, build(who, v, rid))
			*writes = ws
			return err
		})
	})
	return writes, err
}
