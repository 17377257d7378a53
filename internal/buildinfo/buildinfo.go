// Package buildinfo says which build of league a binary is: its module
// version and the VCS revision it was built from, as Go records them, for
// `leagued -version`, `leaguectl version` and the league_build_info metric.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// Info is what a binary knows of its build.
type Info struct {
	Version  string // the module's version: v1.2.3, a pseudo-version, or (devel)
	Revision string // the VCS revision, "" when Go recorded none
	Time     string // the revision's commit time (RFC 3339), when known
	Modified bool   // built from a tree with uncommitted changes
	Go       string // the Go version that built it
}

// Read returns this binary's build. Go records the revision when it builds
// inside a VCS checkout with -buildvcs (the default outside of tests), not
// for `go run` of a single file nor when GOFLAGS says -buildvcs=false.
func Read() Info {
	i := Info{Version: "(devel)", Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return i
	}
	if bi.Main.Version != "" {
		i.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Revision = s.Value
		case "vcs.time":
			i.Time = s.Value
		case "vcs.modified":
			i.Modified = s.Value == "true"
		}
	}
	return i
}

// String is the line the binaries print: "league <version> (<revision>
// [modified], <time>) <go>".
func (i Info) String() string {
	var b strings.Builder
	b.WriteString("league " + i.Version + " (")
	switch {
	case i.Revision == "":
		b.WriteString("revision unknown: built without VCS information (-buildvcs=false, or outside a git checkout)")
	default:
		b.WriteString("revision " + i.Revision)
		if i.Modified {
			b.WriteString(" with uncommitted changes")
		}
		if i.Time != "" {
			b.WriteString(", committed " + i.Time)
		}
	}
	b.WriteString(") " + i.Go)
	return b.String()
}

// Register exports the build as league_build_info{version, revision,
// go_version} 1, the Prometheus convention for joining a build to the other
// series.
func Register(reg prometheus.Registerer, i Info) error {
	rev := i.Revision
	if rev == "" {
		rev = "unknown"
	}
	if i.Modified {
		rev += "+modified"
	}
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "league_build_info",
		Help:        "The build of this process: its module version, VCS revision and Go version, as labels; always 1.",
		ConstLabels: prometheus.Labels{"version": i.Version, "revision": rev, "go_version": i.Go},
	})
	g.Set(1)
	return reg.Register(g)
}
