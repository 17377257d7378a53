package tzname

import (
	"strings"
	"testing"
)

func TestProblem(t *testing.T) {
	for zone, want := range map[string]string{
		"Europe/Paris": "", "UTC": "", "America/Argentina/Buenos_Aires": "",
		"Local": "host's zone", "localtime": "host's zone", "posix/localtime": "host's zone", "LOCALTIME": "host's zone",
		"posixrules": "host's zone", "/etc/localtime": "host's zone",
		"./localtime": "not a zone name", "Europe//Paris": "not a zone name", "Europe/Paris/": "not a zone name",
		"/usr/share/zoneinfo/Europe/Paris": "is a file",
	} {
		got := Problem(zone)
		if (want == "" && got != "") || (want != "" && !strings.Contains(got, want)) {
			t.Errorf("Problem(%q) = %q, want %q", zone, got, want)
		}
	}
}
