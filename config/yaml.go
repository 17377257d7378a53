package config

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// What the YAML says as written, before yaml.v3's decoding loses it: a
// fraction it would truncate to a whole number, a null list entry it would
// drop, a duration written as 0 rather than left out.

// wholeFields are the settings that take whole numbers, as are the
// quantities under a reward's items.
var wholeFields = map[string]bool{"board_size": true, "max_score": true, "decay_after": true, "buckets": true,
	"min_promote_score": true, "min_reward_score": true, "history_limit": true, "shared_round_trips": true,
	"max_connections": true, "max_connections_per_client": true}

// checkWhole refuses a fraction where a whole number belongs: yaml.v3 would
// truncate board_size: 10.5 to 10 without a word.
func checkWhole(n *yaml.Node, items bool) error {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			if err := checkWhole(c, false); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if (items || wholeFields[k.Value]) && v.Kind == yaml.ScalarNode {
				switch v.ShortTag() {
				case "!!float":
					f, err := strconv.ParseFloat(v.Value, 64)
					switch {
					case err == nil && f == math.Trunc(f) && math.Abs(f) >= 1<<63:
						return fmt.Errorf("line %d: %s: %s is out of range", v.Line, k.Value, v.Value)
					case err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53:
						// 1e2 or 100.0: whole, but read as a float (exact only
						// this far); said as the number to write instead.
						return fmt.Errorf("line %d: %s: %s is written as a fraction or an exponent; write the whole number %d",
							v.Line, k.Value, v.Value, int64(f))
					}
					return fmt.Errorf("line %d: %s: %s is not a whole number", v.Line, k.Value, v.Value)
				case "!!str", "!!bool", "!!binary", "!!timestamp":
					return fmt.Errorf("line %d: %s: %q is not a number", v.Line, k.Value, v.Value)
				case "!!int":
					if _, err := strconv.ParseInt(v.Value, 0, 64); err != nil {
						return fmt.Errorf("line %d: %s: %s is out of range", v.Line, k.Value, v.Value)
					}
				}
			}
			if err := checkWhole(v, k.Value == "items"); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkNulls refuses a null entry in a list ("- null", "- ~" or a bare
// "-"): yaml.v3 drops it without a word, so a stray one would lose a tier, a
// reward band, a league or a key and config check would still pass. path is
// where n sits, named as the other errors name it: `league "weekly": ` for a
// league, then fields and indexes, with a tier's id after its index.
func checkNulls(n *yaml.Node, path string) error {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := checkNulls(c, path); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := n.Content[i].Value
			if path != "" && !strings.HasSuffix(path, ": ") {
				p = path + "." + p
			} else {
				p = path + p
			}
			if err := checkNulls(n.Content[i+1], p); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			if c.Kind == yaml.AliasNode && c.Alias != nil {
				c = c.Alias
			}
			if c.Kind == yaml.ScalarNode && c.ShortTag() == "!!null" {
				return fmt.Errorf("%s is empty (null)", p)
			}
			id := mappingID(c)
			switch {
			case path == "leagues":
				if id == "" {
					id = fmt.Sprintf("#%d", i+1) // as Parse names it
				}
				p = fmt.Sprintf("league %q: ", id)
			case id != "":
				p += " (" + id + ")"
			}
			if err := checkNulls(c, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// mappingID is the id: of a mapping (a league, a tier), or "".
func mappingID(n *yaml.Node) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "id" {
			return n.Content[i+1].Value
		}
	}
	return ""
}

// duration is a duration in YAML: Go syntax ("90s", "168h") or whole days
// ("7d"). It keeps the text as written and get parses it, so that an error
// names the field.
type duration struct {
	text string
	set  bool // false when the field is left out or null
}

func (d *duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: not a duration like 90s, 12h or 7d", n.Line)
	}
	*d = duration{text: strings.TrimSpace(n.Value), set: true}
	return nil
}

// maxDays is the most whole days a time.Duration holds (about 292 years).
const maxDays = math.MaxInt64 / int64(24*time.Hour)

// get returns the duration, 0 when it was left out (the caller's "use the
// default"); field names it in an error. A duration written in the file is
// at least min: 0 too, which the default would otherwise silently replace.
// A day count is checked before it is multiplied: 999999999d would wrap
// round to a negative duration.
func (d duration) get(field string, min time.Duration) (time.Duration, error) {
	if !d.set {
		return 0, nil
	}
	var v time.Duration
	if days, ok := strings.CutSuffix(d.text, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if n > maxDays { // ParseInt gives MaxInt64 with its range error
			return 0, fmt.Errorf("%s: %s is too long, at most %dd", field, d.text, maxDays)
		}
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%s: %q is not a duration like 90s, 12h or 7d", field, d.text)
		}
		v = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if v, err = time.ParseDuration(d.text); err != nil || v < 0 {
			return 0, fmt.Errorf("%s: %q is not a duration like 90s, 12h or 7d", field, d.text)
		}
	}
	if v < min {
		return 0, fmt.Errorf("%s: %s is shorter than %v", field, d.text, min)
	}
	return v, nil
}

// checkUnknown names a field the file has and t (the struct it decodes
// into) lacks, where it sits and what the fields there are: yaml.v3's own
// error (yamlErr) names Go types ("field x not found in type
// config.leagueFile"). Only a field yamlErr names is named: merge keys (<<)
// and aliases are yaml.v3's to resolve. path is as checkNulls builds it.
func checkUnknown(n *yaml.Node, path string, t reflect.Type, yamlErr string) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		if t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode {
			for i, c := range n.Content {
				p := fmt.Sprintf("%s[%d]", path, i)
				if id := mappingID(c); path == "leagues" {
					if id == "" {
						id = fmt.Sprintf("#%d", i+1)
					}
					p = fmt.Sprintf("league %q: ", id)
				} else if id != "" {
					p += " (" + id + ")"
				}
				if err := checkUnknown(c, p, t.Elem(), yamlErr); err != nil {
					return err
				}
			}
			return nil
		}
		t = t.Elem()
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		return checkUnknown(n.Content[0], path, t, yamlErr)
	}
	if t.Kind() != reflect.Struct || n.Kind != yaml.MappingNode || reflect.PointerTo(t).Implements(unmarshaler) {
		return nil
	}
	fields := map[string]reflect.Type{}
	var names []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "autopipeline" {
			fields[name], names = t.Field(i).Type, append(names, name)
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		p := path + k.Value
		if path != "" && !strings.HasSuffix(path, ": ") {
			p = path + "." + k.Value
		}
		ft, ok := fields[k.Value]
		if !ok && strings.Contains(yamlErr, fmt.Sprintf("line %d: field %s not found", k.Line, k.Value)) {
			return fmt.Errorf("line %d: %s: unknown field; the fields there are %s", k.Line, p, strings.Join(names, ", "))
		}
		if ok {
			if err := checkUnknown(n.Content[i+1], p, ft, yamlErr); err != nil {
				return err
			}
		}
	}
	return nil
}

var unmarshaler = reflect.TypeFor[yaml.Unmarshaler]()
