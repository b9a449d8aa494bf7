package cli

import (
	"strings"
	"testing"
)

// TestRestoreSharedIDKeepsIgnoredFile: the built binary. snap prints id
// T while the ignored .ignore lists secret. The user empties .ignore,
// removes secret and snaps the same tree T again, then makes secret
// anew. restore T leaves secret byte for byte, and says it left it as
// is: the first capture of T ignored it.
func TestRestoreSharedIDKeepsIgnoredFile(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.write(".gitignore", ".ignore\n")
	e.write(".ignore", "secret\n")
	e.write("secret", "the user's\x00 own\n")
	e.write("a", "a\n")
	id := e.snapID("snap", "-m", "first")
	e.ok("end")
	e.write(".ignore", "")
	e.rm("secret")
	if again := e.snapID("snap", "-m", "second"); again != id {
		t.Fatalf("the second snap printed %s; want the same tree %s", again, id)
	}
	e.ok("end")
	e.write("secret", "made again\x00\n")
	e.write("a", "later\n")
	r := e.ok("restore", id[:12])
	if got := string(e.read("secret")); got != "made again\x00\n" {
		t.Fatalf("after restore secret holds %q\nrestore: %s%s", got, r.stdout, r.stderr)
	}
	if got := string(e.read("a")); got != "a\n" {
		t.Fatalf("after restore a holds %q\nrestore: %s%s", got, r.stdout, r.stderr)
	}
	want := "not restored: secret (ignored in the state restored to; left as is)"
	if out := r.stdout + r.stderr; !strings.Contains(out, want) {
		t.Fatalf("restore does not say %q:\n%s", want, out)
	}
}
