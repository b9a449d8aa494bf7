package cli

// End-to-end test of "turnback version".

import (
	"runtime"
	"strings"
	"testing"
)

// TestVersion: "version" prints one line starting "turnback ", and with
// --json one JSON document.
func TestVersion(t *testing.T) {
	t.Parallel()
	e := newHookEnv(t)
	r := e.ok("version")
	if !strings.HasPrefix(r.stdout, "turnback ") || strings.Count(r.stdout, "\n") != 1 || r.stderr != "" {
		t.Errorf("version:\n%s", r)
	}
	if !strings.Contains(r.stdout, runtime.GOOS+"/"+runtime.GOARCH) {
		t.Errorf("version does not name the platform:\n%s", r)
	}
	r = e.ok("--json", "version")
	var doc map[string]string
	cliOneJSON(t, r.stdout, &doc)
	if len(doc) != 1 || doc["version"] != strings.TrimSpace(e.ok("version").stdout) {
		t.Errorf("--json version = %v", doc)
	}
}
