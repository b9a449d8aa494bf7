package turnback_test

// Attacks on the by-name read (walker/names.go) where Base's skipped
// names, from the capture memo, and Base's tree come from different
// captures or different rules.

import (
	"fmt"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
)

// entryIn returns path p's entry in state id, nil if it has none.
func (rt *regressTree) entryIn(id cas.Hash, p string) *manifest.Entry {
	rt.t.Helper()
	e, err := manifest.Find(rt.ctx, manifest.NewStoreLoader(rt.repo.Content()), id, p)
	if err != nil {
		rt.t.Fatalf("find %s in %s: %v", p, id, err)
	}
	return e
}

// TestScopedRedoAfterUndoUnignored: an undo that rewrites .gitignore
// makes a file that was ignored a captured one, but its result is
// recorded as the newest state with the skipped names of its
// checkpoint, which was captured under the old rules. The redo's
// scoped capture reads the root by name: x is listed, Base's tree
// lacks it, and Base's (stale) skip list names it, so it is taken as
// skipped still, unread. A full capture, and the by-name rule itself
// (a name Base lacks is read), have x in the redo's checkpoint.
func TestScopedRedoAfterUndoUnignored(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	for i := range 20 {
		rt.write(fmt.Sprintf("f%02d", i), "f")
	}
	rt.write(".gitignore", "")
	rt.snap()
	rt.write(".gitignore", "x\n")
	rt.end()
	rt.write("x", "made by the user, ignored")
	u, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if e := rt.entryIn(u.Checkpoint, "x"); e != nil {
		t.Fatalf("undo's checkpoint holds x, ignored then")
	}
	// x is not ignored any more: the redo's checkpoint must hold it.
	r, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	rt.do("redo", err)
	if e := rt.entryIn(r.Checkpoint, "x"); e == nil {
		t.Fatalf("redo's checkpoint %s lacks x, a file not ignored when it was captured", r.Checkpoint)
	}
}

// TestScopedRedoAfterUndoIgnored is the other way round: the undo
// makes x, captured in its checkpoint, ignored. Its result keeps x as
// captured, and the redo's scoped capture took x from it unread: the
// redo's checkpoint held a file ignored when it was captured.
func TestScopedRedoAfterUndoIgnored(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	for i := range 20 {
		rt.write(fmt.Sprintf("f%02d", i), "f")
	}
	rt.write(".gitignore", "x\n")
	rt.snap()
	rt.write(".gitignore", "")
	rt.end()
	rt.write("x", "made by the user, not ignored")
	u, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if e := rt.entryIn(u.Checkpoint, "x"); e == nil {
		t.Fatalf("undo's checkpoint lacks x, not ignored then")
	}
	r, err := rt.repo.Redo(rt.ctx, 1, turnback.RedoOptions{})
	rt.do("redo", err)
	if e := rt.entryIn(r.Checkpoint, "x"); e != nil {
		t.Fatalf("redo's checkpoint %s holds x, a file ignored when it was captured", r.Checkpoint)
	}
	if got := rt.read("x"); got != "made by the user, not ignored" {
		t.Fatalf("x holds %q", got)
	}
}

// TestScopedUndoAfterGitInit: the folder was no git repository when
// its newest state was captured, node_modules skipped by its built-in
// name. A "git init" and "git add -f node_modules/x.js" since make it
// tracked. The memo's index stamps were empty, so they looked current,
// and the undo's scoped capture read the top by name and took
// node_modules as skipped still: its checkpoint lacked a tracked file.
func TestScopedUndoAfterGitInit(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	for i := range 20 {
		rt.write(fmt.Sprintf("f%02d", i), "f")
	}
	rt.write("node_modules/x.js", "vendored")
	rt.snap()
	rt.write("f00", "the agent's")
	rt.end()
	runGit(t, rt.dir, "init", "-q")
	runGit(t, rt.dir, "add", "-f", "node_modules/x.js")
	u, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if e := rt.entryIn(u.Checkpoint, "node_modules/x.js"); e == nil {
		t.Fatalf("undo's checkpoint %s lacks node_modules/x.js, tracked when it was captured", u.Checkpoint)
	}
}

// TestScopedUndoIgnoredIgnoreFile: .ignore is itself ignored (a
// personal ripgrep file, listed in .gitignore), so no state holds it.
// The user emptied it after the turn, and x, which it ignored, is a
// file turnback captures now. The undo's scoped capture read .ignore
// (an ignore file is always read), but RulesChanged compares the ignore
// files the two states hold: none, so the rules looked unchanged, and
// x, listed and skipped by the base, was taken as skipped still.
func TestScopedUndoIgnoredIgnoreFile(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	for i := range 20 {
		rt.write(fmt.Sprintf("f%02d", i), "f")
	}
	rt.write(".gitignore", ".ignore\n")
	rt.write(".ignore", "x\n")
	rt.write("x", "ignored, then not")
	rt.snap()
	rt.write("f00", "the agent's")
	rt.end()
	rt.write(".ignore", "")
	u, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if e := rt.entryIn(u.Checkpoint, "x"); e == nil {
		t.Fatalf("undo's checkpoint %s lacks x, not ignored when it was captured", u.Checkpoint)
	}
}
