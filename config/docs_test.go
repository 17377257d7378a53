package config

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestFieldsDocumented: every key the config file takes is named in
// docs/configuration.md.
func TestFieldsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(ty reflect.Type, path string) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for i := 0; i < ty.NumField(); i++ {
			name, _, _ := strings.Cut(ty.Field(i).Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				continue
			}
			// a row `name`, `a.name`, or name: in an example
			named := regexp.MustCompile("`([a-z_]+(\\[\\])?\\.)*" + name + "[`.( :]|[ {]" + name + ":")
			if name != "autopipeline" && !named.Match(doc) { // autopipeline: a retired key, refused with a message
				t.Errorf("%s%s is not in docs/configuration.md", path, name)
			}
			walk(ty.Field(i).Type, path+name+".")
		}
	}
	walk(reflect.TypeOf(file{}), "")
	if len(seen) < 5 {
		t.Fatalf("walked %d structs; the config's layout changed under this test", len(seen))
	}
}
