package cli

import "testing"

// TestUndoKeepsFileOfIgnoredIgnoreFile: the built binary. .gitignore
// lists .ignore, which lists secret, the user's file. A turn empties
// .ignore and edits a; gc runs before the undo. The undo reverts a and
// leaves secret, ignored before the turn, byte for byte.
func TestUndoKeepsFileOfIgnoredIgnoreFile(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.write(".gitignore", ".ignore\n")
	e.write(".ignore", "secret\n")
	e.write("secret", "the user's\x00 own\n")
	e.write("a", "a\n")
	e.ok("snap", "-m", "edit a")
	e.write(".ignore", "")
	e.write("a", "the agent's\n")
	e.ok("end")
	e.ok("gc")
	r := e.ok("undo")
	if got := string(e.read("secret")); got != "the user's\x00 own\n" {
		t.Fatalf("after undo secret holds %q\nundo: %s%s", got, r.stdout, r.stderr)
	}
	if got := string(e.read("a")); got != "a\n" {
		t.Fatalf("after undo a holds %q\nundo: %s%s", got, r.stdout, r.stderr)
	}
}
