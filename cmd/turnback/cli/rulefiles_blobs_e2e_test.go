package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestLargeIgnoredRulesCLI: the built binary with ignored .ignore files
// as large as a capture reads (4 MiB) and 12 of 60 KiB, the rules of
// which used to go inline into one Badger transaction. snap, end, undo,
// redo, restore, gc and verify must all succeed (before: snap failed
// "Txn is too big") and leave every secret byte for byte.
func TestLargeIgnoredRulesCLI(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	pad := func(first string, n int) string {
		return first + strings.Repeat("# padding of a large ignore file\n", n/33+1)
	}
	e.write(".gitignore", ".ignore\n")
	dirs := []string{"huge"}
	e.write("huge/.ignore", pad("secret\n", 4<<20))
	for i := range 12 {
		d := "d" + string(rune('a'+i))
		dirs = append(dirs, d)
		e.write(d+"/.ignore", pad("secret\n", 60<<10))
	}
	for _, d := range dirs {
		e.write(d+"/secret", "the user's "+d+"\x00\n")
	}
	e.write("a", "a\n")
	var snap struct{ Snapshot string }
	ip := e.setup() // the turn is the setting, not the check
	ip.okJSON(&snap, "snap", "-m", "edit a")
	e.write("a", "the agent's\n")
	e.write("huge/.ignore", "")
	e.write("da/.ignore", "")
	ip.ok("end")
	check := func(what, a string, r cliResult) {
		t.Helper()
		if got := string(e.read("a")); got != a {
			t.Fatalf("after %s a holds %q\n%s%s", what, got, r.stdout, r.stderr)
		}
		for _, d := range dirs {
			if got := string(e.read(d + "/secret")); got != "the user's "+d+"\x00\n" {
				t.Fatalf("after %s %s/secret holds %q\n%s%s", what, d, got, r.stdout, r.stderr)
			}
		}
	}
	check("undo", "a\n", e.ok("undo"))
	check("redo", "the agent's\n", e.ok("redo"))
	check("restore", "a\n", e.ok("restore", snap.Snapshot))
	e.ok("gc")
	var v struct{ Problems []json.RawMessage }
	e.okJSON(&v, "verify")
	if len(v.Problems) != 0 {
		t.Fatalf("verify: %s", v.Problems)
	}
	check("gc", "a\n", e.ok("status"))
}
