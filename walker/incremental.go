package walker

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
)

// incremental reports whether the capture may reuse Options.Base.
func (c *capture) incremental() bool {
	return c.opts.Dirty != nil && !c.opts.Base.IsZero()
}

// reuse decides, for subdirectory name (path p) of a directory whose
// tree in Options.Base is base, whether Base's tree can be taken as it
// is. It returns the reused entry (Hash set), or nil and the
// subdirectory's place in Base (nil if Base has none) for reading it.
func (c *capture) reuse(ctx context.Context, p, name string, base *prevDir) (*prevDir, *manifest.Entry) {
	if base == nil {
		return nil, nil
	}
	t := base.get(ctx, c, nil)
	if t == nil {
		return nil, nil
	}
	be, ok := t.Lookup(name)
	if !ok || !be.IsCapturedDir() {
		return nil, nil
	}
	if c.opts.Dirty(p) {
		return &prevDir{hash: be.Hash}, nil
	}
	if c.opts.Uncounted {
		c.mu.Lock()
		c.stats.Dirs++
		c.stats.DirsReused++ // its subdirectories uncounted
		c.mu.Unlock()
		c.reusedDir(p)
		return nil, be
	}
	tot, err := c.totalsOf(ctx, be.Hash)
	if err != nil {
		// Base is not readable here: read the directory instead.
		return nil, nil
	}
	if tot.reread {
		return &prevDir{hash: be.Hash}, nil
	}
	c.addTotals(p, tot)
	c.reusedDir(p)
	return nil, be
}

// reuseRoot returns Base itself as the capture's result, when nothing
// at all may have changed. ok is false if Base cannot be loaded.
func (c *capture) reuseRoot(ctx context.Context) (*Result, bool) {
	tot, err := c.totalsOf(ctx, c.opts.Base)
	if err != nil || tot.reread {
		return nil, false
	}
	c.addTotals("", tot)
	sort.Slice(c.stats.Uncaptured, func(i, j int) bool { return c.stats.Uncaptured[i].Path < c.stats.Uncaptured[j].Path })
	skipped, _ := c.opts.Index.skippedOf(c.opts.Base)
	tracked, _ := c.opts.Index.trackedOf(c.opts.Base)
	return &Result{Root: c.opts.Base, Stats: c.stats, Skipped: slices.Clone(skipped), TrackedIgnored: slices.Clone(tracked)}, true
}

// addTotals counts a reused directory (path p) and everything below it.
func (c *capture) addTotals(p string, t *treeTotal) {
	c.prog.Files.Add(t.files)
	c.prog.Dirs.Add(t.dirs + 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &c.stats
	s.Files += t.files
	s.Dirs += t.dirs + 1
	s.DirsReused += t.dirs + 1
	s.Symlinks += t.symlinks
	s.FIFOs += t.fifos
	s.Bytes += t.bytes
	for _, u := range t.uncaptured {
		e := u.e
		s.Uncaptured = append(s.Uncaptured, Uncaptured{Path: manifest.JoinPath(p, u.path), Kind: e.Kind.String(), Size: e.Size, Files: e.Files, Reason: c.reusedReason(&e), Hash: e.Hash})
	}
}

// reusedReason says why an entry of a reused tree is uncaptured (trees
// holding entries for which rereads is true are never reused).
func (c *capture) reusedReason(e *manifest.Entry) string {
	if e.Kind == manifest.KindDir {
		return "directory uncaptured since it appeared"
	}
	return c.overLimit()
}

// treeTotal is what a captured directory adds to Stats, its own entry
// apart (dirs counts the directories below it).
type treeTotal struct {
	files, dirs, symlinks, fifos, bytes int64
	uncaptured                          []uncapturedRel
	// reread: the tree holds an entry that a capture reads again even
	// if nothing changed (see rereads), so it must not be reused.
	reread bool
}

// rereads reports whether a capture reads e again although nothing
// changed, so that reusing it could give another result than reading:
// a file that could not be read (no hash; the stat cache never vouches
// for it), and an uncaptured directory without a file count (one that
// could not be read, or a large new directory emptied, which the next
// capture reads as a directory never seen uncaptured); and a member of a
// hard-link group, whose LinkTo depends on files elsewhere in the tree
// (see "Hard links" in the package doc).
func rereads(e *manifest.Entry) bool {
	return e.Uncaptured && (e.Kind == manifest.KindFile && e.Hash.IsZero() || e.Kind == manifest.KindDir && e.Files == 0) ||
		e.LinkTo != ""
}

// uncapturedRel is an uncaptured entry below a tree, path relative to it.
type uncapturedRel struct {
	path string
	e    manifest.Entry
}

// TreeTotals remembers, per tree address, the counts a reused directory
// adds to an incremental capture's Stats. A tree's totals depend on its
// content only, so entries never go stale; the map is bounded and simply
// cleared when full. Safe for concurrent use.
type TreeTotals struct {
	mu sync.Mutex
	m  map[cas.Hash]*treeTotal
}

// maxTotals bounds a TreeTotals (about 100 bytes per entry).
const maxTotals = 1 << 18

// NewTreeTotals returns an empty TreeTotals.
func NewTreeTotals() *TreeTotals { return &TreeTotals{m: map[cas.Hash]*treeTotal{}} }

func (t *TreeTotals) get(h cas.Hash) *treeTotal {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[h]
}

func (t *TreeTotals) put(h cas.Hash, v *treeTotal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.m) >= maxTotals {
		clear(t.m)
	}
	t.m[h] = v
}

// totalsOf counts the tree h and everything below it, loading trees
// from the store unless c.totals knows them.
func (c *capture) totalsOf(ctx context.Context, h cas.Hash) (*treeTotal, error) {
	if v := c.totals.get(h); v != nil {
		return v, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := c.loader.LoadTree(ctx, h)
	if err != nil {
		return nil, err
	}
	v, err := sumTree(t, func(sub cas.Hash) (*treeTotal, error) { return c.totalsOf(ctx, sub) })
	if err != nil {
		return nil, err
	}
	c.totals.put(h, v)
	return v, nil
}

// noteTotals records the totals of tree t (address h), which this
// capture has just written, when the totals of every captured
// subdirectory are known (those read by this capture were recorded as
// they were written, those reused were counted by reuse): a full
// capture with Options.Totals leaves its trees counted as it goes, and
// the next incremental capture loads none of them to count them.
func (c *capture) noteTotals(h cas.Hash, t *manifest.Tree) {
	if c.totals == nil || c.totals.get(h) != nil {
		return
	}
	v, err := sumTree(t, func(sub cas.Hash) (*treeTotal, error) {
		if v := c.totals.get(sub); v != nil {
			return v, nil
		}
		return nil, errNotCounted
	})
	if err == nil {
		c.totals.put(h, v)
	}
}

// errNotCounted: a subdirectory's totals are not known (noteTotals
// then leaves the tree to totalsOf).
var errNotCounted = errors.New("walker: subdirectory not counted")

// sumTree counts tree t, taking each captured subdirectory's totals
// from sub.
func sumTree(t *manifest.Tree, sub func(cas.Hash) (*treeTotal, error)) (*treeTotal, error) {
	v := &treeTotal{}
	for _, e := range t.Entries {
		v.reread = v.reread || rereads(&e)
		switch e.Kind {
		case manifest.KindFile:
			v.files++
			if e.Uncaptured {
				v.uncaptured = append(v.uncaptured, uncapturedRel{path: e.Name, e: e})
			} else {
				v.bytes += e.Size
			}
		case manifest.KindSymlink:
			v.symlinks++
		case manifest.KindFIFO:
			v.fifos++
		case manifest.KindDir:
			if e.Uncaptured {
				v.uncaptured = append(v.uncaptured, uncapturedRel{path: e.Name, e: e})
				continue
			}
			s, err := sub(e.Hash)
			if err != nil {
				return nil, err
			}
			v.files += s.files
			v.dirs += s.dirs + 1
			v.symlinks += s.symlinks
			v.fifos += s.fifos
			v.bytes += s.bytes
			v.reread = v.reread || s.reread
			for _, u := range s.uncaptured {
				v.uncaptured = append(v.uncaptured, uncapturedRel{path: manifest.JoinPath(e.Name, u.path), e: u.e})
			}
		}
	}
	return v, nil
}

// Has reports whether t knows the totals of tree h.
func (t *TreeTotals) Has(h cas.Hash) bool { return t.get(h) != nil }
