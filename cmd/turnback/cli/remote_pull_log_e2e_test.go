package cli

import (
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
)

// TestRemoteCLIPullLogMarks: after a pull, log marks the pulled turns
// the folder lacks ("[pulled, not in the folder]", "pulled": true in
// --json), and only them; pull --apply brings them in and the mark
// goes. The same through a watch daemon.
func TestRemoteCLIPullLogMarks(t *testing.T) {
	for _, daemon := range []bool{false, true} {
		name := "direct"
		if daemon {
			name = "daemon"
		}
		t.Run(name, func(t *testing.T) {
			if daemon {
				testtier.Slow(t)
			}
			url := "s3://tb-pull-log-" + name + "/p"
			srv, a := remoteOrigin(t, url)
			a.write("f.txt", "zero\n")
			pushTurn(a, map[string]string{"f.txt": "one\n"})
			clone := remoteClone
			if daemon {
				clone = remoteCloneDaemon
			}
			b := clone(t, srv, url, "default")
			pushTurn(a, map[string]string{"f.txt": "two\n"})
			pushTurn(a, map[string]string{"g.txt": "three\n"})
			b.ok("pull")
			lines := strings.Split(strings.TrimSpace(b.ok("log").stdout), "\n")
			marked := 0
			for _, l := range lines[1:] {
				n := strings.Fields(l)[0]
				pulled := strings.HasSuffix(l, "  [pulled, not in the folder]")
				if pulled {
					marked++
				}
				if pulled != (n != "1") {
					t.Errorf("log line of turn %s: %q", n, l)
				}
			}
			if marked != 2 {
				t.Errorf("log after the pull marks %d turns:\n%s", marked, strings.Join(lines, "\n"))
			}
			var doc struct {
				Turns []map[string]any `json:"turns"`
			}
			b.okJSON(&doc, "log", "--json")
			for _, turn := range doc.Turns {
				if want := turn["turn"] != 1.0; (turn["pulled"] == true) != want {
					t.Errorf("log --json turn %v: pulled %v, want %v", turn["turn"], turn["pulled"], want)
				}
			}
			b.ok("pull", "--apply")
			if out := b.ok("log").stdout; strings.Contains(out, "pulled") {
				t.Errorf("log after pull --apply:\n%s", out)
			}
		})
	}
}
