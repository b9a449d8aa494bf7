package turnback_test

// The model-based test (model_test.go): the plain in-memory model of the
// folder, of a restore's plan and of a session's stacks.

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/turnback/turnback/manifest"
)

// ---------------------------------------------------------------------
// The model of the folder.

type mkind uint8

const (
	mFile mkind = iota + 1
	mDir
	mLink
)

func (k mkind) String() string {
	switch k {
	case mFile:
		return "file"
	case mDir:
		return "dir"
	case mLink:
		return "symlink"
	}
	return "?"
}

// mnode is one path: kind, permission bits (0 for symlinks) and the
// content of a file or the target of a symlink.
type mnode struct {
	kind mkind
	mode uint32
	data string
}

func (n mnode) String() string {
	switch n.kind {
	case mDir:
		return fmt.Sprintf("dir %04o", n.mode)
	case mLink:
		return fmt.Sprintf("symlink -> %q", n.data)
	}
	return fmt.Sprintf("file %04o %s", n.mode, describeData(n.data))
}

func describeData(d string) string {
	if len(d) <= 24 {
		return strconv.Quote(d)
	}
	return fmt.Sprintf("%q...(%d bytes)", d[:16], len(d))
}

// mtree maps slash-separated paths to what is there.
type mtree map[string]mnode

func (t mtree) clone() mtree {
	c := make(mtree, len(t))
	for k, v := range t {
		c[k] = v
	}
	return c
}

func (t mtree) get(p string) *mnode {
	if n, ok := t[p]; ok {
		return &n
	}
	return nil
}

func (t mtree) set(p string, n *mnode) {
	if n == nil {
		delete(t, p)
	} else {
		t[p] = *n
	}
}

func (t mtree) paths() []string {
	ps := make([]string, 0, len(t))
	for p := range t {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return ps
}

// canon is a canonical text of the tree: equal trees, equal text.
func (t mtree) canon() string {
	var b strings.Builder
	for _, p := range t.paths() {
		n := t[p]
		fmt.Fprintf(&b, "%s\x00%d\x00%o\x00%s\x00", p, n.kind, n.mode, n.data)
	}
	return b.String()
}

func (t mtree) String() string {
	var b strings.Builder
	for _, p := range t.paths() {
		fmt.Fprintf(&b, "    %s: %v\n", p, t[p])
	}
	if len(t) == 0 {
		b.WriteString("    (empty)\n")
	}
	return b.String()
}

// sameNode: a path holding a needs no change to hold b (directories by
// kind and mode, their contents being separate paths).
func sameNode(a, b *mnode) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case mDir:
		return a.mode == b.mode
	case mLink:
		return a.data == b.data
	}
	return a.mode == b.mode && a.data == b.data
}

// changedPaths lists the paths that differ between two states, sorted.
func changedPaths(a, b mtree) []string {
	var out []string
	for p, n := range a {
		n := n
		if !sameNode(&n, b.get(p)) {
			out = append(out, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func isUnder(p, dir string) bool { return strings.HasPrefix(p, dir+"/") }

// comparePaths orders paths component by component (a directory right
// before its contents), as a restore applies them.
func comparePaths(a, b string) int {
	return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
}

// ---------------------------------------------------------------------
// The model of a restore: actions checked like a plan, then applied.

type maction struct {
	path     string
	old, new *mnode
}

func (a maction) removes() bool {
	if a.old == nil {
		return false
	}
	if a.new == nil {
		return true
	}
	return a.old.kind != a.new.kind && (a.old.kind == mDir || a.new.kind == mDir)
}

type mplan struct {
	result                  mtree
	restored, deleted, made []string
	blocked, kept           []string
	// madeParents: directories the plan had to create for a path whose
	// parent the user had deleted (see the package comment).
	madeParents []string
	// parentBlocked: paths blocked because the user put a file or symlink
	// where their parent directory was.
	parentBlocked []string
	accepted      []maction
}

// planModel applies actions (each moving a path from what cur holds to
// what target holds) to cur: a directory to be removed that still holds
// paths the plan does not remove is kept (or, if something else should
// replace it, blocked with everything below it); a path whose parent the
// user replaced by a file or symlink is blocked; missing parents are
// created as target has them.
func planModel(cur, target mtree, actions []maction) *mplan {
	as := slices.Clone(actions)
	slices.SortFunc(as, func(a, b maction) int { return comparePaths(a.path, b.path) })
	removed := map[string]bool{}
	for _, a := range as {
		if a.removes() {
			removed[a.path] = true
		}
	}
	var strangers func(dir string) bool
	strangers = func(dir string) bool {
		for p, n := range cur {
			if manifest.ParentPath(p) != dir {
				continue
			}
			if !removed[p] {
				return true
			}
			if n.kind == mDir && strangers(p) {
				return true
			}
		}
		return false
	}
	pl := &mplan{result: cur.clone()}
	blocked := map[string]bool{}
	underBlocked := func(p string) bool {
		for q := manifest.ParentPath(p); q != ""; q = manifest.ParentPath(q) {
			if blocked[q] {
				return true
			}
		}
		return false
	}
	var accepted []maction
	for _, a := range as {
		block := func() {
			blocked[a.path] = true
			pl.blocked = append(pl.blocked, a.path)
		}
		if underBlocked(a.path) {
			block()
			continue
		}
		if a.old != nil && a.old.kind == mDir && a.removes() && strangers(a.path) {
			if a.new == nil {
				pl.kept = append(pl.kept, a.path)
				continue
			}
			block()
			continue
		}
		if a.new != nil {
			// The parent must be a directory once the earlier actions ran.
			bad := false
			for q := manifest.ParentPath(a.path); q != "" && !bad; q = manifest.ParentPath(q) {
				if n := pl.result.get(q); n != nil && n.kind != mDir {
					bad = true
				}
			}
			if bad {
				block()
				pl.parentBlocked = append(pl.parentBlocked, a.path)
				continue
			}
		}
		accepted = append(accepted, a)
		pl.result.set(a.path, a.new)
		if a.new == nil || a.removes() {
			for p := range pl.result {
				if isUnder(p, a.path) {
					delete(pl.result, p) // all removed by accepted actions of their own
				}
			}
		}
		if a.new != nil {
			var missing []string
			for q := manifest.ParentPath(a.path); q != ""; q = manifest.ParentPath(q) {
				if pl.result.get(q) == nil {
					missing = append(missing, q)
				}
			}
			for _, q := range missing {
				pl.result.set(q, target.get(q))
				pl.madeParents = append(pl.madeParents, q)
			}
		}
	}
	pl.accepted = accepted
	for _, a := range accepted {
		switch {
		case a.new == nil:
			pl.deleted = append(pl.deleted, a.path)
		case a.old == nil:
			pl.made = append(pl.made, a.path)
		default:
			pl.restored = append(pl.restored, a.path)
		}
	}
	return pl
}

// ---------------------------------------------------------------------
// The model of a session.

type mturn struct {
	n             int
	before, after mtree // after is nil while open
	closedBy      string
	msg           bool // the snap that opened it had a message
}

func (t *mturn) open() bool { return t.closedBy == "" }

type mgroup struct {
	turns                []*mturn // still to redo, oldest first
	checkpoint, expected mtree
	// A partial undo: turns is empty, partial names the turns whose
	// paths (the clean paths given) it reverted.
	partial []int
	paths   []string
}

type msession struct {
	next  int
	turns []*mturn
	redo  []*mgroup
	// last is the newest state the session recorded (snap, end of an
	// open turn, undo, redo): what status compares with. nil: none yet.
	last mtree
}

func (s *msession) clone() *msession {
	c := &msession{next: s.next, last: s.last}
	for _, t := range s.turns {
		x := *t
		c.turns = append(c.turns, &x)
	}
	for _, g := range s.redo {
		x := *g
		x.turns = nil
		for _, t := range g.turns {
			y := *t
			x.turns = append(x.turns, &y)
		}
		c.redo = append(c.redo, &x)
	}
	return c
}

// closeOpen closes the open turn at state now; it reports the turn and
// whether it was dropped for changing nothing. A turn that changed the
// folder starts a new timeline: the redo stack is cleared (the redo
// rule; a snap alone keeps it).
func (s *msession) closeOpen(now mtree, by string) (*mturn, bool) {
	n := len(s.turns)
	if n == 0 || !s.turns[n-1].open() {
		return nil, false
	}
	t := s.turns[n-1]
	t.after, t.closedBy = now.clone(), by
	if t.after.canon() == t.before.canon() {
		s.turns = s.turns[:n-1]
		return t, true
	}
	s.redo = nil
	return t, false
}
