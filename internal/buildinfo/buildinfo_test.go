package buildinfo

import (
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestString(t *testing.T) {
	for _, c := range []struct {
		info Info
		want string
	}{
		{Info{Version: "v1.2.0", Revision: "abc123", Time: "2026-11-25T10:00:00Z", Go: "go1.26.8"},
			"league v1.2.0 (revision abc123, committed 2026-11-25T10:00:00Z) go1.26.8"},
		{Info{Version: "(devel)", Revision: "abc123", Modified: true, Go: "go1.26.8"},
			"league (devel) (revision abc123 with uncommitted changes) go1.26.8"},
		{Info{Version: "(devel)", Go: "go1.26.8"},
			"league (devel) (revision unknown: built without VCS information (-buildvcs=false, or outside a git checkout)) go1.26.8"},
	} {
		if got := c.info.String(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

func TestReadKnowsTheGoVersion(t *testing.T) {
	if i := Read(); i.Go != runtime.Version() || i.Version == "" {
		t.Fatalf("%+v", i)
	}
}

func TestRegister(t *testing.T) {
	reg := prometheus.NewRegistry()
	if err := Register(reg, Info{Version: "v1", Revision: "abc", Modified: true, Go: "go1"}); err != nil {
		t.Fatal(err)
	}
	want := `# HELP league_build_info The build of this process: its module version, VCS revision and Go version, as labels; always 1.
# TYPE league_build_info gauge
league_build_info{go_version="go1",revision="abc+modified",version="v1"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "league_build_info"); err != nil {
		t.Fatal(err)
	}
}
