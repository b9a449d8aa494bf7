// Directories read by name (Options.Names): the directory is listed,
// but only some names are lstat'ed, and Base's tree gives the rest
// unread. The listing keeps the names themselves exact: a name Base has
// and the directory no longer holds is gone, and a name Base lacks is
// read.

package walker

import (
	"context"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker/ignore"
)

// partialDir is a directory read by name: lookup are the names
// lstat'ed, unnamed Base's entries of every other name. Until fit, both
// are what Base and Options.Names say; after it, only names listed.
type partialDir struct {
	lookup  []string         // sorted, each once
	unnamed []manifest.Entry // sorted by name
	listed  []string         // after fit: every name listed, sorted
}

// read reports whether name was lstat'ed.
func (p *partialDir) read(name string) bool {
	_, ok := slices.BinarySearch(p.lookup, name)
	return ok
}

// partialOf returns how directory rel (judged probe by its parent, base
// its place in Base) is read by name; nil: it is read whole. It is
// read whole when Options.Names says so, when Base's tree of it cannot
// be loaded, and when that tree holds an entry of a name not read that
// a capture would read again (see rereads: an unreadable file, a hard
// link whose group may have changed) or a directory Dirty calls dirty.
func (c *capture) partialOf(ctx context.Context, rel string, probe ignore.Probe, base *prevDir) *partialDir {
	if !readByName || c.opts.Names == nil || !c.opts.Uncounted || !c.incremental() || base == nil {
		return nil
	}
	want, ok := c.opts.Names(rel)
	if !ok {
		return nil
	}
	t := base.get(ctx, c, nil)
	if t == nil {
		return nil
	}
	lookup := make([]string, 0, len(want)+len(ignore.FileNames)+8)
	lookup = append(lookup, want...)
	lookup = append(lookup, ignore.FileNames...)
	lookup = append(lookup, ".git") // a nested repository (tracking.nested)
	if rel != "" {
		lookup = append(lookup, ignore.MarkerNames(path.Base(rel), probe)...)
	}
	sort.Strings(lookup)
	lookup = slices.Compact(lookup)
	for _, n := range lookup {
		if !validName(n) {
			return nil
		}
	}
	p := &partialDir{lookup: lookup}
	for i := range t.Entries {
		e := &t.Entries[i]
		if p.read(e.Name) {
			continue
		}
		if rereads(e) || e.IsCapturedDir() && c.opts.Dirty(manifest.JoinPath(rel, e.Name)) {
			return nil
		}
		p.unnamed = append(p.unnamed, *e)
	}
	return p
}

// fit fits p to directory d's listing: a name not listed is neither
// lstat'ed nor taken from Base, and a name listed that Base lacks, or
// that Base has as another kind, is lstat'ed, but one Base skipped
// (skipped: name to whether a directory), if still of that kind. The
// rules that skipped it are unchanged (the caller checks them).
// known is the listing its record vouches for, if not nil (no name was
// made, deleted or replaced since); else d is listed, names and types
// only. It returns the names to lstat, a copy (list keeps it as
// scratch); nil: d could not be listed so, and is read whole.
func (p *partialDir) fit(d *dirh, sc *dirScratch, known []string, skipped map[string]bool) []string {
	listed := known
	var types []uint8 // nil: known, the kinds are Base's
	if listed == nil {
		var ok bool
		if listed, types, ok = d.listNames(sc.listBuf()); !ok {
			return nil
		}
		sc.names = listed
	}
	if len(listed) > 0 && !d.searchable() {
		return nil // read whole, it fails as a listing does
	}
	lookup := make([]string, 0, len(p.lookup))
	unnamed := make([]manifest.Entry, 0, len(p.unnamed))
	for k, n := range listed {
		i, found := slices.BinarySearchFunc(p.unnamed, n, func(e manifest.Entry, n string) int {
			return strings.Compare(e.Name, n)
		})
		if found && (types == nil || kindIs(types[k], p.unnamed[i].Kind)) {
			unnamed = append(unnamed, p.unnamed[i])
			continue
		}
		if isDir, ok := skipped[n]; ok && !found && !p.read(n) && (types == nil || (types[k] == dtDir) == isDir) {
			continue // skipped by Base, and still (see skippedUnread)
		}
		lookup = append(lookup, n) // named, new, or of another kind
	}
	p.lookup, p.unnamed = lookup, unnamed
	p.listed = append(make([]string, 0, len(listed)), listed...)
	return append(make([]string, 0, len(lookup)), lookup...)
}

// baseSkips are the names Base skipped, by directory, made once.
type baseSkips struct {
	once sync.Once
	dirs map[string]map[string]bool // name to whether a directory
}

// in returns the names Base skipped in directory rel.
func (b *baseSkips) in(c *capture, rel string) map[string]bool {
	b.once.Do(func() {
		list, _ := c.opts.Index.skippedOf(c.opts.Base)
		b.dirs = map[string]map[string]bool{}
		for _, s := range list {
			dir, name := path.Split(s.Path)
			dir = strings.TrimSuffix(dir, "/")
			if b.dirs[dir] == nil {
				b.dirs[dir] = map[string]bool{}
			}
			b.dirs[dir][name] = s.Dir
		}
	})
	return b.dirs[rel]
}

// takeUnnamed merges into read (the entries of the names read, sorted)
// Base's entries of the other names of directory rel, counts them, and
// notes rel as read by name.
func (c *capture) takeUnnamed(rel string, p *partialDir, read []manifest.Entry) []manifest.Entry {
	out := make([]manifest.Entry, 0, len(read)+len(p.unnamed))
	var nFiles, nBytes, nLinks, nFIFOs, nDirs int64
	i := 0
	for _, e := range p.unnamed {
		for i < len(read) && read[i].Name < e.Name {
			out = append(out, read[i])
			i++
		}
		out = append(out, e)
		switch e.Kind {
		case manifest.KindFile:
			nFiles++
			if !e.Uncaptured {
				nBytes += e.Size
			}
		case manifest.KindSymlink:
			nLinks++
		case manifest.KindFIFO:
			nFIFOs++
		case manifest.KindDir:
			if e.IsCapturedDir() {
				// As reuse takes it (Options.Uncounted): its own entry
				// counted, what it holds not.
				nDirs++
				c.reusedDir(manifest.JoinPath(rel, e.Name))
			}
		}
	}
	out = append(out, read[i:]...)
	c.prog.Files.Add(nFiles)
	c.prog.Dirs.Add(nDirs)
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &c.stats
	s.Files += nFiles
	s.Bytes += nBytes
	s.Symlinks += nLinks
	s.FIFOs += nFIFOs
	s.Dirs += nDirs
	s.DirsReused += nDirs
	if c.partial == nil {
		c.partial = map[string]*partialDir{}
	}
	c.partial[rel] = p
	return out
}

// isASCII reports whether s is ASCII only.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// swapCase returns s with the case of its ASCII letters swapped.
func swapCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			b[i] = c - 'a' + 'A'
		case 'A' <= c && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}

// skippedUnread reports whether Base's skipped entry at path s lies
// directly in a directory read by name, under a name listed and not
// read: it is skipped still, as far as this capture knows. in: its directory was
// read by name (else the caller looks further up).
func (c *capture) skippedUnread(s string) (skip, in bool) {
	dir := path.Dir(s)
	if dir == "." {
		dir = ""
	}
	p, ok := c.partial[dir]
	if !ok {
		return false, false
	}
	name := path.Base(s)
	_, listed := slices.BinarySearch(p.listed, name)
	return listed && !p.read(name), true
}
