package turnback_test

// The model of scoped captures (scoped.go) and partial states
// (partial.go). Without a watcher an undo or redo with no open turn
// reads only the paths it may write and the directories on the way to
// them (in those, only the names on the way), taking the rest from
// the newest recorded state: its
// checkpoint and result hold that state's content elsewhere. Both are
// recorded as vouching for those paths only, and restore of such a
// state puts back those paths alone.

import (
	"path"
	"runtime"
	"slices"
	"strings"
)

// scopeModel follows what scoped captures read and which recorded
// states are partial.
type scopeModel struct {
	off    bool  // no scoped capture: a daemon watches the folder
	latest mtree // the newest recorded state (m/latest), nil: none
	files  int   // the file count its record says (the 1/4 rule)
	// Recorded states by canon: whole, or partial with the paths it
	// vouches for.
	whole map[string]bool
	part  map[string][]string
}

func (s *scopeModel) clone() scopeModel {
	c := *s
	c.whole, c.part = map[string]bool{}, map[string][]string{}
	for k, v := range s.whole {
		c.whole[k] = v
	}
	for k, v := range s.part {
		c.part[k] = v
	}
	return c
}

// record notes state recorded whole or vouching for scope (an undo's
// or redo's), as stateEntry does: a whole record stays whole, a partial
// one takes the newest scope, and a whole one replaces a partial one.
func (s *scopeModel) record(state mtree, scope []string, partial bool) {
	if s.whole == nil {
		s.whole, s.part = map[string]bool{}, map[string][]string{}
	}
	c := state.canon()
	switch {
	case !partial:
		s.whole[c] = true
		delete(s.part, c)
	case s.whole[c]:
	default:
		s.part[c] = uniquePaths(slices.Clone(scope))
	}
}

// vouched returns the paths state vouches for, and whether it is
// partial.
func (s *scopeModel) vouched(state mtree) ([]string, bool) {
	p, ok := s.part[state.canon()]
	return p, ok
}

// setLatest notes state as the newest recorded one, with its count.
func (s *scopeModel) setLatest(state mtree, files int) {
	s.latest, s.files = state.clone(), files
}

// capture returns what a capture for an undo or redo that may write
// scope makes of the folder cur (and of after, the folder the command
// leaves, for its result), and the file count the next record says:
// scoped (cur's content at the paths of scope and on the way to them,
// the newest recorded state's elsewhere) when captureScope would, else
// cur and after themselves.
func (s *scopeModel) capture(cur, after mtree, scope []string) (cp, res mtree, files int, scoped bool) {
	if s.off || s.latest == nil || len(scope) > s.files/4 {
		return cur, after, countFiles(cur), false
	}
	dirty := map[string]bool{"": true}
	given := map[string]bool{}
	names := map[string]map[string]bool{}
	for _, p := range scope {
		given[p] = true
		for q := p; q != "." && q != ""; q = path.Dir(q) {
			dirty[q] = true
			d := parentPath(q)
			if names[d] == nil {
				names[d] = map[string]bool{}
			}
			names[d][path.Base(q)] = true
		}
	}
	for p := range given {
		delete(names, p) // a path of the scope is read whole
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		names = nil // directories are read whole (walker's readByName)
	}
	cp, reused := overlay(s.latest, cur, dirty, names)
	// The result is the checkpoint with the command's changes, and
	// nothing else: what the capture took unread stays the base's.
	res = cp.clone()
	for _, p := range changedPaths(cur, after) {
		res.set(p, after.get(p))
	}
	files = s.files
	if !reused {
		files = countFiles(cp) // every directory was read, some by name
	}
	return cp, res, files, true
}

// overlay is a scoped capture of folder x with base l: the dirty
// directories as x has them; what is below a directory in one of them
// that is not dirty as l has it, if l has it as a directory, else as x
// has it (the directory's own entry is x's). A dirty directory with
// names that l has as a directory is read by name, unless a name it
// lstats is not ASCII: it is listed; the entries of those names and of
// names l lacks or has as another kind as x has them, the others x has
// (and what is below them) as l has them, and none x lacks.
// reused says whether l gave any directory.
func overlay(l, x mtree, dirty map[string]bool, names map[string]map[string]bool) (mtree, bool) {
	out := mtree{}
	reused := false
	var walk func(dir string)
	walk = func(dir string) {
		named, byName := names[dir]
		if b := l.get(dir); dir != "" && (b == nil || b.kind != mDir) {
			byName = false
		}
		// lstated: whether a name x has in dir is lstat'ed when dir is
		// read by name: a name named, or one l lacks or has as another
		// kind (the listing shows it new, or its type).
		lstated := func(p string) bool {
			b := l.get(p)
			return named[path.Base(p)] || b == nil || b.kind != x.get(p).kind
		}
		for _, p := range x.paths() {
			if byName && parentPath(p) == dir && lstated(p) && !modelASCII(path.Base(p)) {
				byName = false // a name a filesystem could normalise: listed
			}
		}
		if byName {
			for _, p := range l.paths() {
				if parentPath(p) != dir || x.get(p) == nil || lstated(p) {
					continue // gone from the listing, or read
				}
				for q, m := range l {
					if q == p || isUnder(q, p) {
						out[q] = m
					}
				}
				reused = reused || l[p].kind == mDir
			}
		}
		for _, p := range x.paths() {
			if parentPath(p) != dir || byName && !lstated(p) {
				continue
			}
			n := x[p]
			if n.kind == mDir && !dirty[p] {
				src := x
				if b := l.get(p); b != nil && b.kind == mDir {
					src, reused = l, true
				}
				out[p] = n // its own entry (mode) is read with its parent
				for q, m := range src {
					if isUnder(q, p) {
						out[q] = m
					}
				}
				continue
			}
			out[p] = n
			if n.kind == mDir {
				walk(p)
			}
		}
	}
	walk("")
	return out, reused
}

// modelASCII reports whether s is ASCII only (walker's isASCII).
func modelASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func parentPath(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// countFiles counts t's regular files (walker.Stats.Files).
func countFiles(t mtree) int {
	n := 0
	for _, v := range t {
		if v.kind == mFile {
			n++
		}
	}
	return n
}

// keepVouchedModel keeps of a restore's changed paths those a partial
// state vouches for, and the directories above one of them that cur
// lacks and target has (partial.go's keepVouched).
func keepVouchedModel(changed, vouched []string, cur, target mtree) []string {
	set := map[string]bool{}
	above := map[string]bool{}
	for _, p := range vouched {
		set[p] = true
		for q := parentPath(p); q != ""; q = parentPath(q) {
			above[q] = true
		}
	}
	var out []string
	for _, p := range changed {
		t := target.get(p)
		if set[p] || above[p] && cur.get(p) == nil && t != nil && t.kind == mDir {
			out = append(out, p)
		}
	}
	return out
}

// redoScopeModel returns the paths the next steps steps of sess's redo
// stack change (scoped.go's redoScope).
func redoScopeModel(sess *msession, steps int) []string {
	var out []string
	for i := len(sess.redo) - 1; i >= 0 && steps > 0; i-- {
		g := sess.redo[i]
		if g.partial != nil {
			out = append(out, changedPaths(g.expected, g.checkpoint)...)
			steps--
			continue
		}
		for _, t := range g.turns {
			if steps == 0 {
				break
			}
			out = append(out, changedPaths(t.before, t.after)...)
			steps--
		}
	}
	return uniquePaths(out)
}
