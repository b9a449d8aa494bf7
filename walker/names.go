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

	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker/ignore"
)

// partialDir is a directory read by name: lookup are the names
// lstat'ed, unnamed Base's entries of every other name. Until fit, both
// are what Base and Options.Names say; after it, only names listed.
type partialDir struct {
	lookup  []string         // sorted, each once
	unnamed []manifest.Entry // sorted by name
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
// lstat'ed nor taken from Base, and a name listed that Base lacks is
// lstat'ed. known is the listing its record vouches for, if not nil;
// else d is listed, names only. It returns the names to lstat, a copy
// (list keeps it as scratch); nil: d could not be listed so, and is
// read whole.
func (p *partialDir) fit(d *dirh, sc *dirScratch, known []string) []string {
	listed := known
	if listed == nil {
		var ok bool
		if listed, ok = d.listNames(sc.names[:0]); !ok {
			return nil
		}
		sc.names = listed
	}
	lookup := make([]string, 0, len(p.lookup))
	unnamed := make([]manifest.Entry, 0, len(p.unnamed))
	for _, n := range listed {
		if i, found := slices.BinarySearchFunc(p.unnamed, n, func(e manifest.Entry, n string) int {
			return strings.Compare(e.Name, n)
		}); found && !p.read(n) {
			unnamed = append(unnamed, p.unnamed[i])
			continue
		}
		lookup = append(lookup, n) // named, or new since Base
	}
	p.lookup, p.unnamed = lookup, unnamed
	return append(make([]string, 0, len(lookup)), lookup...)
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
// directly in a directory read by name, under a name not read: it is
// skipped still, as far as this capture knows. in: its directory was
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
	return !p.read(path.Base(s)), true
}
