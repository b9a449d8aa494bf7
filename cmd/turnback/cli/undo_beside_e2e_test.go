package cli

// The undo that reads its paths by name: what the user made or deleted
// beside the turn's paths, in the turn's own directory, after the last
// capture, is in the undo's checkpoint (the directory is listed).

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback/manifest/treetest"
)

// TestUndoCheckpointKeepsSameDirEdits: the user's edits made after the
// last capture beside a turn path, in its directory, stay through the
// undo and through restore of the undo's checkpoint (the way back the
// undo prints), byte for byte. The checkpoint holds the file made and
// lacks the one deleted, so it is a new, partial state: restore of it
// puts back a/x.txt alone. Lstat'ing only the turn's names, without a
// listing, the checkpoint was the turn's after-state, recorded whole:
// restore of it deleted a/mine.txt, brought a/old.txt back and reverted
// a/z.txt.
func TestUndoCheckpointKeepsSameDirEdits(t *testing.T) {
	t.Parallel()
	e := newScopeEnv(t)
	e.write("a/z.txt", "z before\n")
	e.write("a/old.txt", "old\n")
	e.setup().ok("snap", "-m", "turn")
	e.write("a/x.txt", "x by the agent\n")
	e.setup().ok("end")
	e.write("a/mine.txt", "the user's file\n") // created beside a/x.txt
	e.write("a/z.txt", "z edited by the user\n")
	e.remove("a/old.txt")
	edits := e.tree()

	var undo scopeRestoreDoc
	e.okJSON(&undo, "undo")
	if !slices.Equal(undo.Restored, []string{"a/x.txt"}) || undo.Checkpoint == "" {
		t.Fatalf("undo --json: %+v", undo)
	}
	e.same("after the undo", edits.With(treetest.Tree{"a/x.txt": treetest.File("x before\n", 0o644)}))
	var res scopeRestoreDoc
	e.okJSON(&res, "restore", undo.Checkpoint)
	if !slices.Equal(res.Restored, []string{"a/x.txt"}) || len(res.Deleted) != 0 {
		t.Errorf("restore of the undo's checkpoint: restored %q deleted %q, want a/x.txt alone", res.Restored, res.Deleted)
	}
	e.same("after restore of the undo's checkpoint", edits)
}

// TestUndoCheckpointNewLargeDirBeside: a new large directory the user
// made beside the turn's path (uncaptured: its content is in no
// store) is no business of restore of the undo's checkpoint: exit 0,
// and no advice to delete it. The checkpoint holds it, as uncaptured.
// Without a listing the checkpoint was the turn's after-state, whole:
// restore exited 5 and said "if the turn made it, delete it yourself
// (rm -r a/gen)", of a directory no turn made and nothing can bring
// back.
func TestUndoCheckpointNewLargeDirBeside(t *testing.T) {
	t.Parallel()
	e := newScopeEnv(t).with("TURNBACK_LARGE_DIR_FILES=5")
	e.setup().ok("snap", "-m", "turn")
	e.write("a/x.txt", "x by the agent\n")
	e.setup().ok("end")
	for i := range 8 {
		e.write(fmt.Sprintf("a/gen/%d.txt", i), fmt.Sprintf("the user's %d\n", i))
	}
	var undo scopeRestoreDoc
	e.okJSON(&undo, "undo")
	if undo.Checkpoint == "" {
		t.Fatalf("undo --json: %+v", undo)
	}
	edits := e.tree()
	r := e.run("restore", undo.Checkpoint)
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, "rm -r a/gen") {
		t.Errorf("restore of the undo's checkpoint, a/gen/ made by the user beside: exit %d, want 0:\n%s", r.code, r)
	}
	e.same("after restore of the undo's checkpoint", edits.With(treetest.Tree{"a/x.txt": treetest.File("x by the agent\n", 0o644)}))
}

// TestRedoCheckpointKeepsSameDirEdits: as TestUndoCheckpointKeepsSameDirEdits
// for redo: edits made between the undo and the redo beside the turn's
// path stay through restore of the redo's checkpoint. Without a
// listing the redo's checkpoint was the undo's result, the tree before
// the turn, recorded whole: restore of it deleted a/mine.txt and
// reverted a/3.txt.
func TestRedoCheckpointKeepsSameDirEdits(t *testing.T) {
	t.Parallel()
	e := newScopeEnv(t)
	e.setup().ok("snap", "-m", "turn")
	e.write("a/x.txt", "x by the agent\n")
	e.setup().ok("end")
	e.ok("undo")
	e.write("a/mine.txt", "the user's file\n")
	e.write("a/3.txt", "the user's 3\n")
	var redo scopeRestoreDoc
	e.okJSON(&redo, "redo")
	if !slices.Equal(redo.Restored, []string{"a/x.txt"}) || redo.Checkpoint == "" {
		t.Fatalf("redo --json: %+v", redo)
	}
	edits := e.tree()
	var res scopeRestoreDoc
	e.okJSON(&res, "restore", redo.Checkpoint)
	if !slices.Equal(res.Restored, []string{"a/x.txt"}) || len(res.Deleted) != 0 {
		t.Errorf("restore of the redo's checkpoint: restored %q deleted %q, want a/x.txt alone", res.Restored, res.Deleted)
	}
	e.same("after restore of the redo's checkpoint", edits.With(treetest.Tree{"a/x.txt": treetest.File("x before\n", 0o644)}))
}
