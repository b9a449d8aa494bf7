package cli

// The undo that reads its paths by name lists their directories: a
// name there deleted and made again as another kind (a file now a
// directory, a directory now a file) is a name deleted and one made,
// and belongs in the undo's checkpoint as a full walk would see it.

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// TestUndoCheckpointKindChangedBeside: the user replaced a/z.txt (a
// file in the last capture, beside the turn's a/x.txt) with a
// directory, or a/sub/ with a file, after the turn. The undo keeps it,
// and restore of the undo's checkpoint (the way back the undo prints)
// must give back the folder as it was before the undo, byte for byte,
// exit 0. The listing names a/z.txt and the base has it, so the undo
// took the base's entry unread: its checkpoint is the turn's
// after-state, recorded whole, and restore of it deleted the user's
// a/z.txt/mine.txt (or put a/sub/ back over the user's file), and for
// a large new directory exited 5 "an uncaptured directory is in the
// way".
func TestUndoCheckpointKindChangedBeside(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skip("directories are read by name on Linux only (walker's readByName)")
	}
	t.Parallel()
	tests := []struct {
		name string
		edit func(e *cliEnv)
	}{
		{"file now a dir", func(e *cliEnv) {
			e.remove("a/z.txt")
			e.write("a/z.txt/mine.txt", "the user's file\n")
		}},
		{"file now a large dir", func(e *cliEnv) {
			e.remove("a/z.txt")
			for i := range 8 {
				e.write(fmt.Sprintf("a/z.txt/%d.txt", i), fmt.Sprintf("the user's %d\n", i))
			}
		}},
		{"dir now a file", func(e *cliEnv) {
			e.rm("a/sub")
			e.write("a/sub", "the user's file\n")
		}},
		{"dir now a symlink", func(e *cliEnv) {
			e.rm("a/sub")
			e.link("z.txt", "a/sub")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newScopeEnv(t).with("TURNBACK_LARGE_DIR_FILES=5")
			e.write("a/z.txt", "z before\n")
			e.write("a/sub/s.txt", "s before\n")
			e.setup().ok("snap", "-m", "turn")
			e.write("a/x.txt", "x by the agent\n")
			e.setup().ok("end")
			tt.edit(e)
			var undo scopeRestoreDoc
			e.okJSON(&undo, "undo")
			if undo.Checkpoint == "" {
				t.Fatalf("undo --json: %+v", undo)
			}
			if r := e.ok("diff", "@2", undo.Checkpoint[:12]); r.stdout == "" {
				t.Errorf("the undo's checkpoint is the turn's after-state: the kind change beside a/x.txt is not in it")
			}
			edits := e.tree()
			r := e.run("--json", "restore", undo.Checkpoint)
			if r.code != 0 || strings.Contains(r.stdout, "in the way") {
				t.Errorf("restore of the undo's checkpoint: exit %d, want 0:\n%s", r.code, r)
			}
			e.same("after restore of the undo's checkpoint", edits.With(treetest.Tree{"a/x.txt": treetest.File("x by the agent\n", 0o644)}))
		})
	}
}
