package cli

// Undo and redo without a daemon read only the paths they may write and
// the names on the way to them (issue #34): their checkpoint vouches
// for those paths,
// and restore of it puts back those alone. These run the binary, no
// daemon, on folders large enough for the scoped capture (its scope at
// most a quarter of the files).

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
)

// newScopeEnv is a folder of 40 files in b/ and c/ beside a/x.txt and
// a/deep/y.txt, snapped; no daemon. The store is named, so that the
// turns that set a test up run in-process (e.setup).
func newScopeEnv(t *testing.T) *cliEnv {
	t.Helper()
	e := newUndoEnv(t)
	e.autoWatch, e.store = false, filepath.Join(e.base, "store")
	for i := range 20 {
		e.write(fmt.Sprintf("b/%d.txt", i), fmt.Sprintf("b %d\n", i))
		e.write(fmt.Sprintf("c/%d.txt", i), fmt.Sprintf("c %d\n", i))
	}
	e.write("a/x.txt", "x before\n")
	e.write("a/deep/y.txt", "y before\n")
	e.setup().ok("snap", "-m", "base")
	return e
}

// scopeRestoreDoc is what these tests read of restore --json.
type scopeRestoreDoc struct {
	Checkpoint string   `json:"checkpoint"`
	Restored   []string `json:"restored"`
	Deleted    []string `json:"deleted"`
	Conflicts  []string `json:"conflicts"`
	Partial    *struct {
		Of      string   `json:"of"`
		Paths   []string `json:"paths"`
		Message string   `json:"message"`
	} `json:"partial"`
}

// TestUndoScopedKeepsOutsideEdit: an edit outside the turn's paths made
// after the last capture stays through the undo. The undo read a/
// alone, so its checkpoint is the turn's after-state, recorded whole:
// restore of it puts back the whole folder, and the user's edits go
// into restore's own checkpoint, which brings them back.
func TestUndoScopedKeepsOutsideEdit(t *testing.T) {
	t.Parallel()
	e := newScopeEnv(t)
	before := e.tree()
	e.setup().ok("snap", "-m", "turn")
	e.write("a/x.txt", "x by the agent\n")
	e.write("a/deep/new.txt", "new by the agent\n")
	e.setup().ok("end")
	agent := e.tree()
	e.write("b/3.txt", "the user's edit\n") // after the last capture, outside the turn

	var undo scopeRestoreDoc
	e.okJSON(&undo, "undo")
	if !slices.Equal(undo.Restored, []string{"a/x.txt"}) || undo.Checkpoint == "" || undo.Partial != nil {
		t.Fatalf("undo --json: %+v", undo)
	}
	e.same("after the undo", before.With(treetest.Tree{"b/3.txt": treetest.File("the user's edit\n", 0o644)}))
	// The undo read a/ alone: its checkpoint is the turn's after-state
	// (b/3.txt as the last capture found it).
	if r := e.ok("diff", "@2", undo.Checkpoint[:12]); r.stdout != "" {
		t.Errorf("the undo's checkpoint differs from the turn's after-state (a full capture?):\n%s", r)
	}
	// The turn's before-state, the undo's result, stays whole too:
	// restore by the id log gave it puts back the whole folder.
	e.write("c/7.txt", "another edit\n")
	now := e.tree()
	var res scopeRestoreDoc
	e.okJSON(&res, "restore", undo.Checkpoint)
	if res.Partial != nil {
		t.Errorf("restore of the undo's checkpoint, the tree of a whole state: partial %+v", res.Partial)
	}
	e.same("after restore of the undo's checkpoint", agent)
	var back scopeRestoreDoc
	e.okJSON(&back, "restore", res.Checkpoint)
	if back.Partial != nil {
		t.Errorf("restore of restore's checkpoint: partial %+v", back.Partial)
	}
	e.same("after restore of restore's checkpoint", now)
}

// TestUndoScopedPartialCheckpoint: when the undo's checkpoint is a new
// state (a change on the way to the turn's paths, which it reads), it
// is recorded as vouching for the turn's paths alone, and restore of it
// puts back those paths, leaving what the user did since elsewhere.
func TestUndoScopedPartialCheckpoint(t *testing.T) {
	t.Parallel()
	e := newScopeEnv(t)
	e.setup().ok("snap", "-m", "turn")
	e.write("a/x.txt", "x by the agent\n")
	e.write("a/deep/new.txt", "new by the agent\n")
	e.setup().ok("end")
	agent := e.tree()
	e.chmod("a/deep", 0o700)                    // on the way to a/deep/new.txt: read
	e.write("a/other.txt", "the user's file\n") // beside a/x.txt: not read
	e.write("b/3.txt", "the user's edit\n")     // in b/: not read

	var undo scopeRestoreDoc
	e.okJSON(&undo, "undo")
	if !slices.Equal(undo.Restored, []string{"a/x.txt"}) || undo.Checkpoint == "" {
		t.Fatalf("undo --json: %+v", undo)
	}
	e.write("b/3.txt", "the user's second edit\n")
	e.write("c/7.txt", "another edit\n")
	e.write("a/x.txt", "x edited after the undo\n")
	now := e.tree()
	r := e.ok("restore", "--dry-run", undo.Checkpoint[:12])
	if !strings.HasPrefix(r.stdout, "checkpoint of undo turn 2: restoring only the 2 paths it holds; other paths stay as they are\n") {
		t.Errorf("restore --dry-run of the undo's checkpoint:\n%s", r)
	}
	var res scopeRestoreDoc
	e.okJSON(&res, "restore", undo.Checkpoint)
	if res.Partial == nil || res.Partial.Of != "undo turn 2" || !slices.Equal(res.Partial.Paths, []string{"a/deep/new.txt", "a/x.txt"}) ||
		res.Partial.Message != "checkpoint of undo turn 2: restoring only the 2 paths it holds; other paths stay as they are" {
		t.Errorf("restore --json of the undo's checkpoint: partial %+v", res.Partial)
	}
	want := now.With(treetest.Tree{"a/x.txt": agent["a/x.txt"], "a/deep/new.txt": agent["a/deep/new.txt"]})
	e.same("after restore of the undo's checkpoint", want)
	var back scopeRestoreDoc
	e.okJSON(&back, "restore", res.Checkpoint)
	if back.Partial != nil {
		t.Errorf("restore of restore's checkpoint: partial %+v", back.Partial)
	}
	e.same("after restore of restore's checkpoint", now)
}

// TestUndoScopedSameDirEdit: the user's edits made in place after the
// last capture in the turn's own directories, beside its paths, stay
// through the undo byte for byte, and the undo does not read them: its
// checkpoint is the turn's after-state, recorded whole. Restore of the
// checkpoint then puts back the whole folder, and its own checkpoint
// brings the edits back. (Names made or deleted there are read: see
// undo_beside_e2e_test.go.)
func TestUndoScopedSameDirEdit(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skip("directories are read by name on Linux only (walker's readByName)")
	}
	t.Parallel()
	e := newScopeEnv(t)
	e.setup().ok("snap", "-m", "turn")
	e.write("a/x.txt", "x by the agent\n")
	e.write("a/deep/new.txt", "new by the agent\n")
	e.setup().ok("end")
	agent := e.tree()
	e.write("a/deep/y.txt", "y edited by the user\n") // beside a/deep/new.txt
	e.rm("b/4.txt")
	edits := e.tree()

	var undo scopeRestoreDoc
	e.okJSON(&undo, "undo")
	if !slices.Equal(undo.Restored, []string{"a/x.txt"}) || !slices.Equal(undo.Deleted, []string{"a/deep/new.txt"}) || undo.Partial != nil {
		t.Fatalf("undo --json: %+v", undo)
	}
	e.same("after the undo", edits.Without("a/deep/new.txt").With(treetest.Tree{"a/x.txt": treetest.File("x before\n", 0o644)}))
	if r := e.ok("diff", "@2", undo.Checkpoint[:12]); r.stdout != "" {
		t.Errorf("the undo's checkpoint differs from the turn's after-state (it read a/ or a/deep/ whole?):\n%s", r)
	}
	now := e.tree()
	var res scopeRestoreDoc
	e.okJSON(&res, "restore", undo.Checkpoint)
	if res.Partial != nil {
		t.Errorf("restore of the undo's checkpoint, the tree of a whole state: partial %+v", res.Partial)
	}
	e.same("after restore of the undo's checkpoint", agent)
	var back scopeRestoreDoc
	e.okJSON(&back, "restore", res.Checkpoint)
	e.same("after restore of restore's checkpoint", now)
	if got := string(e.read("a/deep/y.txt")); got != "y edited by the user\n" {
		t.Errorf("a/deep/y.txt = %q", got)
	}
}

// TestUndoScopedConflict: an edit to a turn path made after the turn
// (and after the last capture) is a conflict: exit 3, nothing changed;
// --force reverts it and its checkpoint holds the edit.
func TestUndoScopedConflict(t *testing.T) {
	t.Parallel()
	e := newScopeEnv(t)
	e.setup().ok("snap", "-m", "turn")
	e.write("a/deep/y.txt", "y by the agent\n")
	e.setup().ok("end")
	e.write("a/deep/y.txt", "y edited by the user\n")
	e.write("c/1.txt", "outside\n")
	edited := e.tree()
	r := e.expect(3, "undo")
	if !strings.Contains(r.stdout+r.stderr, "a/deep/y.txt") {
		t.Errorf("undo over an edit names it:\n%s", r)
	}
	e.same("after the refused undo", edited)
	var undo scopeRestoreDoc
	e.okJSON(&undo, "--force", "undo")
	if !slices.Equal(undo.Conflicts, []string{"a/deep/y.txt"}) {
		t.Errorf("undo --force: conflicts %q, want a/deep/y.txt (overwritten)", undo.Conflicts)
	}
	e.same("after undo --force", edited.With(treetest.Tree{"a/deep/y.txt": treetest.File("y before\n", 0o644)}))
	e.ok("restore", undo.Checkpoint)
	e.same("after restore of the checkpoint", edited)
}

// TestUndoScopedIgnoreRules: a .gitignore written after the last
// capture that ignores a turn path, at the top or in an ancestor of
// the path, is read again: the path is left as it is (a path ignored
// in either state is never rewritten).
func TestUndoScopedIgnoreRules(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, file, rule string }{
		{"top", ".gitignore", "y.txt\n"},
		{"ancestor", "a/.gitignore", "deep/y.txt\n"},
		{"parent", "a/deep/.gitignore", "y.txt\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newScopeEnv(t)
			e.setup().ok("snap", "-m", "turn")
			e.write("a/deep/y.txt", "y by the agent\n")
			e.write("a/x.txt", "x by the agent\n")
			e.setup().ok("end")
			e.write(c.file, c.rule)
			want := e.tree().With(treetest.Tree{"a/x.txt": treetest.File("x before\n", 0o644)})
			r := e.ok("undo")
			if !strings.Contains(r.stdout, "a/deep/y.txt (ignored in the current state; left as is)") {
				t.Errorf("undo with %s ignoring a/deep/y.txt:\n%s", c.file, r)
			}
			e.same("after the undo", want)
		})
	}
}

// TestUndoScopedRulesChanged: an ignore file of a directory the undo
// reads that changed since the last capture changes what the rest of
// the folder holds (b/3.txt and c/3.txt are ignored now): the undo
// reads everything, so the state it leaves is the folder's and status
// lists no change (it listed both as deleted).
func TestUndoScopedRulesChanged(t *testing.T) {
	t.Parallel()
	e := newScopeEnv(t)
	e.setup().ok("snap", "-m", "turn")
	e.write("a/x.txt", "x by the agent\n")
	e.setup().ok("end")
	e.write(".gitignore", "3.txt\n")
	e.ok("undo")
	if r := e.ok("status"); !strings.HasPrefix(r.stdout, "no changes") {
		t.Errorf("status after the undo:\n%s", r)
	}
}

// TestUndoOpenTurnCapturesAll: an undo that closes the open turn reads
// the whole folder, as before: its checkpoint is that turn's
// after-state, whole, and restore of it puts back every path.
func TestUndoOpenTurnCapturesAll(t *testing.T) {
	t.Parallel()
	e := newScopeEnv(t)
	e.setup().ok("snap", "-m", "turn")
	e.write("a/x.txt", "x by the agent\n")
	e.write("c/2.txt", "c by the agent\n")
	agent := e.tree() // the turn is still open
	var undo scopeRestoreDoc
	e.okJSON(&undo, "undo")
	if !slices.Equal(undo.Restored, []string{"a/x.txt", "c/2.txt"}) {
		t.Fatalf("undo of the open turn: %+v", undo)
	}
	e.write("b/5.txt", "after the undo\n")
	var res scopeRestoreDoc
	e.okJSON(&res, "restore", undo.Checkpoint)
	if res.Partial != nil {
		t.Errorf("restore of the checkpoint of an undo that closed the turn: partial %+v", res.Partial)
	}
	e.same("after restore of the checkpoint", agent)
}

// TestRedoScopedKeepsOutsideEdit: redo reads its turn's directories
// only; an edit elsewhere made after the undo stays through the redo.
func TestRedoScopedKeepsOutsideEdit(t *testing.T) {
	t.Parallel()
	e := newScopeEnv(t)
	e.setup().ok("snap", "-m", "turn")
	e.write("a/x.txt", "x by the agent\n")
	e.setup().ok("end")
	agent := e.tree()
	e.ok("undo")
	undone := e.tree()
	e.write("b/9.txt", "the user's edit\n")
	var redo scopeRestoreDoc
	e.okJSON(&redo, "redo")
	if !slices.Equal(redo.Restored, []string{"a/x.txt"}) {
		t.Fatalf("redo: %+v", redo)
	}
	edit := treetest.Tree{"b/9.txt": treetest.File("the user's edit\n", 0o644)}
	e.same("after the redo", agent.With(edit))
	// The redo's checkpoint is the undo's result, the tree of the snap
	// before the turn: recorded whole, restore of it puts back the
	// whole folder, and restore's own checkpoint keeps the user's edit.
	e.write("b/9.txt", "the user's second edit\n")
	now := e.tree()
	var res scopeRestoreDoc
	e.okJSON(&res, "restore", redo.Checkpoint)
	if res.Partial != nil {
		t.Errorf("restore of the redo's checkpoint: partial %+v", res.Partial)
	}
	e.same("after restore of the redo's checkpoint", undone)
	e.ok("restore", res.Checkpoint)
	e.same("after restore of restore's checkpoint", now)
}

// TestUndoScopedKilled: a scoped undo killed (SIGKILL) at each of its
// restore steps is rolled back or finished by the next command, and
// the edit outside the turn made after the last capture stays.
func TestUndoScopedKilled(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	for k := 1; ; k++ {
		e := newScopeEnv(t)
		e.setup().ok("snap", "-m", "turn")
		e.write("a/x.txt", "x by the agent\n")
		e.rm("a/deep/y.txt")
		e.write("a/z.txt", "z by the agent\n")
		e.setup().ok("end")
		edit := treetest.Tree{"b/3.txt": treetest.File("the user's edit\n", 0o644)}
		e.write("b/3.txt", "the user's edit\n")
		agent := e.tree()
		cmd := e.with(fmt.Sprintf("TURNBACK_TEST_CRASH_AT=%d", k)).command("undo")
		err := cmd.Run()
		if err == nil {
			if k < 4 {
				t.Fatalf("undo ran to its end with TURNBACK_TEST_CRASH_AT=%d", k)
			}
			return // past the last step
		}
		if cmd.ProcessState.Exited() {
			t.Fatalf("undo with TURNBACK_TEST_CRASH_AT=%d: %v, want killed", k, err)
		}
		e.ok("status") // finishes or rolls back the undo
		got := e.tree()
		undone := treetest.Tree(nil)
		if _, ok := got["a/z.txt"]; !ok {
			undone = got
		}
		switch {
		case undone == nil:
			t.Logf("killed at step %d: rolled back", k)
			treetest.Check(t, fmt.Sprintf("killed at step %d, rolled back", k), got, agent)
			continue
		default:
			t.Logf("killed at step %d: finished", k)
			want := agent.Without("a/z.txt").With(treetest.Tree{"a/x.txt": treetest.File("x before\n", 0o644),
				"a/deep/y.txt": treetest.File("y before\n", 0o644)}).With(edit)
			treetest.Check(t, fmt.Sprintf("killed at step %d, finished", k), got, want)
		}
		var cps struct {
			Checkpoints []struct{ ID string } `json:"checkpoints"`
		}
		e.okJSON(&cps, "checkpoints")
		if len(cps.Checkpoints) != 1 {
			t.Fatalf("killed at step %d: checkpoints %+v", k, cps)
		}
		e.write("b/3.txt", "the user's second edit\n")
		var res scopeRestoreDoc
		e.okJSON(&res, "restore", cps.Checkpoints[0].ID)
		// The checkpoint is the turn's end, recorded whole: b/3.txt
		// comes back as that capture found it.
		if res.Partial != nil {
			t.Errorf("killed at step %d: restore of the checkpoint: partial %+v", k, res.Partial)
		}
		e.same(fmt.Sprintf("killed at step %d: after restore of the checkpoint", k),
			agent.With(treetest.Tree{"b/3.txt": treetest.File("b 3\n", 0o644)}))
	}
}
