package turnback_test

// The model-based test (model_test.go): the checks after every step, the
// folder and the session against the model.

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

// ---------------------------------------------------------------------
// Checks.

// readDisk reads the folder (through the shared tree fixture) into the
// model's terms. A path of another type (a fifo, say) is an error: the
// model makes none.
func readDisk(dir string) (mtree, error) {
	tr, err := treetest.Read(dir)
	if err != nil {
		return nil, err
	}
	t := mtree{}
	for p, e := range tr {
		switch e.Kind {
		case treetest.KindDir:
			t[p] = mnode{kind: mDir, mode: manifest.ModeOf(e.Mode)}
		case treetest.KindSymlink:
			t[p] = mnode{kind: mLink, data: e.Data}
		case treetest.KindFile:
			t[p] = mnode{kind: mFile, mode: manifest.ModeOf(e.Mode), data: e.Data}
		default:
			return nil, fmt.Errorf("%s: unexpected file type %s", p, e.Data)
		}
	}
	return t, nil
}

// modelStamp is what a write to an inode changes.
type modelStamp struct {
	ino          uint64
	mtime, ctime int64
}

func (s modelStamp) String() string {
	return fmt.Sprintf("inode %d mtime %d ctime %d", s.ino, s.mtime, s.ctime)
}

// stamps returns the stamp of every path ("" is the work tree itself),
// or nil where the platform has none.
func (h *harness) stamps() map[string]modelStamp {
	out := map[string]modelStamp{}
	for _, p := range append([]string{""}, h.fs.paths()...) {
		fi, err := os.Lstat(h.abs(p))
		if err != nil {
			h.failf("stat %s: %v", p, err)
		}
		st, ok := diskStamp(fi)
		if !ok {
			return nil
		}
		out[p] = st
	}
	return out
}

// untouched checks that no path the step was not allowed to write was
// written (invariant 3: only the turn; invariant 7: capture never
// modifies the work tree, not even timestamps). allowed nil: nothing was.
// Directories are exempt after a restore (their entries change).
func (h *harness) untouched(what string, before map[string]modelStamp, allowed func(p string) bool) {
	if before == nil {
		return
	}
	after := h.stamps()
	for p, b := range before {
		a, ok := after[p]
		if !ok {
			continue
		}
		if allowed != nil {
			if n := h.fs.get(p); p == "" || n == nil || n.kind == mDir || allowed(p) {
				continue
			}
		}
		if a != b {
			name := p
			if name == "" {
				name = "the work tree"
			}
			h.failf("%s wrote %s, which it must not touch: %v, now %v", what, name, b, a)
		}
	}
}

// touchedBy returns whether a path is one of the plans' actions or below
// one that removes or replaces a directory.
func touchedBy(pls ...*mplan) func(string) bool {
	return func(p string) bool {
		for _, pl := range pls {
			for _, a := range pl.accepted {
				if a.path == p || isUnder(p, a.path) {
					return true
				}
			}
		}
		return false
	}
}

func diffTrees(want, got mtree) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, p := range append(want.paths(), got.paths()...) {
		if seen[p] {
			continue
		}
		seen[p] = true
		w, g := want.get(p), got.get(p)
		switch {
		case w == nil:
			fmt.Fprintf(&b, "    %s: want nothing, disk has %v\n", p, *g)
		case g == nil:
			fmt.Fprintf(&b, "    %s: want %v, disk has nothing\n", p, *w)
		case *w != *g:
			fmt.Fprintf(&b, "    %s: want %v, disk has %v\n", p, *w, *g)
		}
	}
	return b.String()
}

// check compares the folder and the session with the model.
func (h *harness) check() {
	t0 := time.Now()
	defer func() { modelTime.check.Add(int64(time.Since(t0))) }()
	got, err := readDisk(h.dir)
	if err != nil {
		h.failf("reading the folder: %v", err)
	}
	if got.canon() != h.fs.canon() {
		h.failf("the folder differs from the model:\n%s", diffTrees(h.fs, got))
	}
	turns, redo, err := h.repo.Turns(h.ctx)
	if err != nil {
		h.failf("Turns: %v", err)
	}
	var want []*mturn
	for i := len(h.sess.turns) - 1; i >= 0; i-- {
		want = append(want, h.sess.turns[i])
	}
	h.checkTurns("turns", turns, want)
	var wantRedo []*mturn
	for _, g := range h.sess.redo {
		for j := len(g.turns) - 1; j >= 0; j-- {
			wantRedo = append(wantRedo, g.turns[j])
		}
	}
	h.checkTurns("redo stack", redo, wantRedo)
}

func (h *harness) checkTurns(what string, got []*turnback.Turn, want []*mturn) {
	desc := func() string {
		var b strings.Builder
		fmt.Fprintf(&b, "store (newest first):")
		for _, t := range got {
			fmt.Fprintf(&b, " %d(%s)", t.N, t.ClosedBy)
		}
		fmt.Fprintf(&b, "; model:")
		for _, t := range want {
			fmt.Fprintf(&b, " %d(%s)", t.n, t.closedBy)
		}
		return b.String()
	}
	if len(got) != len(want) {
		h.failf("%s: store has %d turns, model %d: %s", what, len(got), len(want), desc())
	}
	for i, g := range got {
		w := want[i]
		if g.N != w.n || g.ClosedBy != w.closedBy || g.Open() != w.open() {
			h.failf("%s: %s", what, desc())
		}
		h.learn(g.Before, w.before, fmt.Sprintf("%s: turn %d before", what, w.n))
		if !w.open() {
			h.learn(g.After, w.after, fmt.Sprintf("%s: turn %d after", what, w.n))
			var added, modified, deleted int
			for _, p := range changedPaths(w.before, w.after) {
				b, a := w.before.get(p), w.after.get(p)
				switch {
				case b == nil:
					if a.kind != mDir {
						added++
					}
				case a == nil:
					if b.kind != mDir {
						deleted++
					}
				case b.kind != mDir || a.kind != mDir:
					modified++
				}
			}
			if g.Added != added || g.Modified != modified || g.Deleted != deleted {
				h.failf("%s: turn %d counts added/modified/deleted %d/%d/%d, model %d/%d/%d",
					what, w.n, g.Added, g.Modified, g.Deleted, added, modified, deleted)
			}
		}
	}
}

// learn records that id names state, failing if either was seen with
// another partner (ids are content addresses). Every id but the current
// state of a Status is a recorded snapshot, a target for Restore.
func (h *harness) learn(id cas.Hash, state mtree, what string) {
	if id.IsZero() {
		h.failf("%s: zero snapshot id", what)
	}
	c := state.canon()
	ids := id.String()
	if prev, ok := h.idOf[c]; ok && prev != ids {
		h.failf("%s: id %s for a state already known as %s:\n%s", what, id.Short(), prev[:12], state)
	}
	if prev, ok := h.stateOf[ids]; ok && prev.canon() != c {
		h.failf("%s: id %s names two states:\nbefore:\n%snow:\n%sdifference (was -> now):\n%s", what, id.Short(), prev, state, diffTrees(prev, state))
	}
	if !strings.HasPrefix(what, "Status current") && !slices.Contains(h.ids, ids) {
		h.ids = append(h.ids, ids) // a recorded snapshot: restorable
	}
	h.idOf[c] = ids
	h.stateOf[ids] = state.clone()
}

func sortedCopy(xs []string) []string {
	c := slices.Clone(xs)
	sort.Strings(c)
	return c
}

func (h *harness) checkList(what string, got, want []string) {
	g, w := sortedCopy(got), sortedCopy(want)
	if !slices.Equal(g, w) {
		h.failf("%s: got %q, model %q", what, g, w)
	}
}

func notePaths(ns []turnback.PathNote) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Path)
	}
	return out
}
