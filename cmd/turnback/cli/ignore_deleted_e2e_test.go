package cli

import (
	"os"
	"testing"
)

// TestUndoBringsBackDeletedAndIgnored: the built binary. A turn deletes
// notes.txt and adds a rule for it; undo puts .gitignore back and
// brings notes.txt back byte for byte. When the user made notes.txt
// again after the turn (ignored then), the undo leaves theirs alone.
func TestUndoBringsBackDeletedAndIgnored(t *testing.T) {
	t.Parallel()
	for _, userMadeIt := range []bool{false, true} {
		e := newStoreEnv(t)
		e.write(".gitignore", "*.log\n")
		e.write("notes.txt", "kept notes\n")
		e.write("src/main.go", "package main\n")
		e.ok("snap", "-m", "tidy")
		e.rm("notes.txt")
		e.write(".gitignore", "*.log\nnotes.txt\n")
		e.ok("end")
		if userMadeIt {
			e.write("notes.txt", "the user's, ignored\n")
		}
		r := e.ok("undo")
		want := "kept notes\n"
		if userMadeIt {
			want = "the user's, ignored\n"
		}
		if got := string(e.read("notes.txt")); got != want {
			t.Errorf("user made it %v: after undo notes.txt holds %q, want %q\nundo: %s%s", userMadeIt, got, want, r.stdout, r.stderr)
		}
		if got := string(e.read(".gitignore")); got != "*.log\n" {
			t.Errorf("user made it %v: after undo .gitignore holds %q", userMadeIt, got)
		}
		if _, err := os.Stat(e.path("src/main.go")); err != nil {
			t.Errorf("src/main.go: %v", err)
		}
	}
}
