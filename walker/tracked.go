// What git tracks and what a directory shows: the inputs, beyond the
// ignore files, of which directories a capture skips (package ignore,
// Matcher.Judge).

package walker

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/walker/gitindex"
	"github.com/turnback/turnback/walker/ignore"
)

// GitIndexes keeps, across the captures of one work tree, the git
// indexes they read (by their stat) and which index versions each
// captured root was made under, so that an incremental capture whose
// base was made under another index (a "git add" can make a directory
// tracked without any event in it) walks the whole tree. Safe for
// concurrent use; the zero value is ready.
type GitIndexes struct {
	cache gitindex.Cache
	mu    sync.Mutex
	roots map[cas.Hash]rootMemo // a few recent roots
	order []cas.Hash
}

// rootMemo is what GitIndexes remembers of a captured root: the index
// versions it was made under, the entries it skipped, and what git
// tracked there that patterns ignore and it lacks (Result.TrackedIgnored).
type rootMemo struct {
	stamps  []gitindex.Stamp
	skipped []Ignored
	tracked []string
}

// maxRootStamps bounds the roots GitIndexes remembers.
const maxRootStamps = 8

func (g *GitIndexes) remember(root cas.Hash, st []gitindex.Stamp, skipped []Ignored, tracked []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.roots == nil {
		g.roots = map[cas.Hash]rootMemo{}
	}
	if _, ok := g.roots[root]; !ok {
		g.order = append(g.order, root)
		if len(g.order) > maxRootStamps {
			delete(g.roots, g.order[0])
			g.order = g.order[1:]
		}
	}
	g.roots[root] = rootMemo{stamps: st, skipped: skipped, tracked: tracked}
}

// current reports whether root was captured under the indexes as they
// are now.
func (g *GitIndexes) current(root cas.Hash) ([]gitindex.Stamp, bool) {
	g.mu.Lock()
	m, ok := g.roots[root]
	g.mu.Unlock()
	return m.stamps, ok && gitindex.Current(m.stamps)
}

// skippedOf returns what the capture of root skipped, if g knows root.
func (g *GitIndexes) skippedOf(root cas.Hash) ([]Ignored, bool) {
	if g == nil {
		return nil, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	m, ok := g.roots[root]
	return m.skipped, ok
}

// trackedOf returns Result.TrackedIgnored of the capture of root, if g
// knows root.
func (g *GitIndexes) trackedOf(root cas.Hash) ([]string, bool) {
	if g == nil {
		return nil, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	m, ok := g.roots[root]
	return m.tracked, ok
}

// Current reports whether root, captured by this process or adopted,
// was made under the git indexes as they are now: false after a "git
// add" (or any write of an index) since, and for a root g does not know.
func (g *GitIndexes) Current(root cas.Hash) bool {
	return g != nil && g.isCurrent(root)
}

// Skipped returns the entries the capture of root skipped (as
// Result.Skipped), and whether g knows root.
func (g *GitIndexes) Skipped(root cas.Hash) ([]Ignored, bool) {
	s, ok := g.skippedOf(root)
	return slices.Clone(s), ok
}

// tracking is one capture's use of the git indexes.
type tracking struct {
	abs    string // the work tree's absolute path ("" unknown: no tracking)
	idx    *GitIndexes
	mu     sync.Mutex
	stamps []gitindex.Stamp
}

func newTracking(root *os.Root, idx *GitIndexes) *tracking {
	t := &tracking{idx: idx}
	if t.idx == nil {
		t.idx = &GitIndexes{}
	}
	if abs, err := filepath.Abs(root.Name()); err == nil {
		t.abs = abs
	}
	return t
}

// top returns the root's matcher: tracking the repository the work tree
// is in (at its top or above it), if any.
func (t *tracking) top(c *capture) *ignore.Matcher {
	m := ignore.New()
	if t.abs == "" {
		return m
	}
	top, prefix, ok := gitindex.FindTop(t.abs)
	if !ok {
		// No repository: a zero stamp of the index a "git init" here
		// would make, so that one made since is an index changed.
		// Once: a watcher's Ignorer loads the top again and again.
		st := gitindex.Stamp{Path: filepath.Join(t.abs, ".git", "index")}
		t.mu.Lock()
		if !slices.Contains(t.stamps, st) {
			t.stamps = append(t.stamps, st)
		}
		t.mu.Unlock()
		return m
	}
	return m.Track("", t.load(c, top, prefix, ""))
}

// nested returns m tracking the repository whose ".git" directory rel
// holds (a submodule, a nested clone), when the listing shows one.
func (t *tracking) nested(c *capture, rel string, m *ignore.Matcher, ents []dirEnt) *ignore.Matcher {
	if rel == "" || t.abs == "" {
		return m
	}
	mode, ok := entsDir{ents: ents}.Lookup(".git")
	if !ok || !mode.IsDir() && !mode.IsRegular() {
		return m
	}
	return m.Track(rel, t.load(c, filepath.Join(t.abs, filepath.FromSlash(rel)), "", rel))
}

// load reads the index of the repository at dir; one it cannot read is
// reported and tracks nothing.
func (t *tracking) load(c *capture, dir, prefix, rel string) ignore.Tracked {
	set, st, err := t.idx.cache.Load(dir, prefix)
	if st.Path != "" {
		t.mu.Lock()
		if !slices.Contains(t.stamps, st) {
			t.stamps = append(t.stamps, st)
		}
		t.mu.Unlock()
	}
	if err != nil {
		if c != nil && !errors.Is(err, fs.ErrPermission) {
			c.problem(path.Join(rel, ".git"), fmt.Errorf("git index unreadable, so nothing here counts as tracked: %w", err))
		}
		return nil
	}
	if set == nil {
		return nil
	}
	return set
}

// done remembers the stamps root was captured under (with base's, for
// the repositories in directories reused unread), what it skipped, and
// its Result.TrackedIgnored.
func (t *tracking) done(root, base cas.Hash, skipped []Ignored, tracked []string) {
	t.mu.Lock()
	st := slices.Clone(t.stamps)
	t.mu.Unlock()
	if !base.IsZero() {
		old, _ := t.idx.current(base)
		for _, s := range old {
			if !slices.ContainsFunc(st, func(x gitindex.Stamp) bool { return x.Path == s.Path }) {
				st = append(st, s)
			}
		}
	}
	t.idx.remember(root, st, skipped, tracked)
}

// entsDir answers Evidence's questions from a directory's listing
// (sorted by name) and, for Head, its handle.
type entsDir struct {
	d    *dirh
	ents []dirEnt
}

func (e entsDir) Lookup(name string) (fs.FileMode, bool) {
	i := sort.Search(len(e.ents), func(i int) bool { return e.ents[i].name >= name })
	if i < len(e.ents) && e.ents[i].name == name && e.ents[i].fi != nil {
		return e.ents[i].fi.Mode(), true
	}
	return 0, false
}

func (e entsDir) Head(name string, n int) []byte {
	if e.d == nil {
		return nil
	}
	f, err := e.d.openFile(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	b := make([]byte, n)
	k, _ := io.ReadFull(f, b)
	return b[:k]
}

// errGenerated: a directory that its listing shows was generated
// (ignore.Evidence); it is skipped like an ignored one.
type errGenerated struct{ evidence string }

func (e *errGenerated) Error() string { return "walker: generated: holds " + e.evidence }

func generated(err error) (string, bool) {
	if err == nil {
		return "", false // no errors.As: its target would escape
	}
	var g *errGenerated
	if errors.As(err, &g) {
		return g.evidence, true
	}
	return "", false
}

// evidence checks a directory just listed that its parent's matcher
// left to evidence (probe): the marker found, "" if none.
func evidence(d *dirh, rel string, probe ignore.Probe, ents []dirEnt) string {
	if rel == "" || probe == ignore.ProbeNone {
		return ""
	}
	return ignore.Evidence(path.Base(rel), probe, entsDir{d: d, ents: ents})
}

// Stamps returns the index versions root was captured under, nil if g
// does not know root.
func (g *GitIndexes) Stamps(root cas.Hash) []gitindex.Stamp {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.roots[root].stamps)
}

// Adopt tells g that root was captured (by another process) under the
// index versions stamps, skipping the entries skipped. What it tracked
// that patterns ignore is unknown until AdoptTrackedIgnored.
func (g *GitIndexes) Adopt(root cas.Hash, stamps []gitindex.Stamp, skipped []Ignored) {
	if g != nil {
		g.remember(root, slices.Clone(stamps), slices.Clone(skipped), nil)
	}
}

// AdoptTrackedIgnored tells g the Result.TrackedIgnored of root, which
// Adopt made known; nothing happens for a root g does not know.
func (g *GitIndexes) AdoptTrackedIgnored(root cas.Hash, paths []string) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if m, ok := g.roots[root]; ok {
		m.tracked = slices.Clone(paths)
		g.roots[root] = m
	}
}

// TrackedIgnored returns the Result.TrackedIgnored of the capture of
// root, and whether g knows root.
func (g *GitIndexes) TrackedIgnored(root cas.Hash) ([]string, bool) {
	s, ok := g.trackedOf(root)
	return slices.Clone(s), ok
}

func (g *GitIndexes) isCurrent(root cas.Hash) bool {
	_, ok := g.current(root)
	return ok
}

// ignored notes entry name of directory rel, skipped by verdict v, for
// Result.Skipped; rules is the blob of what the capture applied of it,
// if it is an ignore file (keepRules).
func (c *capture) ignored(rel, name string, fi fs.FileInfo, v ignore.Verdict, rules string) {
	if v.Source == ignore.SourceGit {
		return
	}
	ig := Ignored{Path: path.Join(rel, name), Dir: fi.IsDir(), Reason: v.Reason(), Rules: rules}
	switch v.Source {
	case ignore.SourceName:
		ig.Rule = "name"
	case ignore.SourceEvidence:
		ig.Rule, ig.Evidence = "evidence", path.Join(ig.Path, v.Evidence)
	case ignore.SourceFile:
		ig.Rule, ig.File, ig.Line = "file", path.Join(v.Rules.Base, v.Rules.File), v.Line
	}
	c.mu.Lock()
	c.skipped = append(c.skipped, ig)
	c.mu.Unlock()
}

// reusedDir notes that directory p was taken from Base unread.
func (c *capture) reusedDir(p string) {
	c.mu.Lock()
	if c.reused == nil {
		c.reused = map[string]bool{}
	}
	c.reused[p] = true
	c.mu.Unlock()
}

// allSkipped returns what the capture skipped: in the directories it
// read, and Base's in those it reused (what opts.Index remembers).
func (c *capture) allSkipped() []Ignored {
	out := c.skipped
	if len(c.reused) > 0 || len(c.partial) > 0 {
		base, _ := c.opts.Index.skippedOf(c.opts.Base)
		for _, s := range base {
			if skip, in := c.skippedUnread(s.Path); in {
				if skip {
					out = append(out, s)
				}
				continue
			}
			for d := path.Dir(s.Path); ; d = path.Dir(d) {
				if d == "." {
					d = ""
				}
				if c.reused[d] {
					out = append(out, s)
					break
				}
				if d == "" {
					break
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
