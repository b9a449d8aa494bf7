package walker

// What git tracks that an ignore file's pattern ignores and the captured
// tree lacks (Result.TrackedIgnored): a file deleted from the work tree
// but still in the index. So is a directory of a built-in name
// (node_modules) holding tracked paths, deleted with them. A stored
// state cannot tell such a path, absent, from one there but ignored and
// untracked; its record can.

import (
	"bytes"
	"path"
	"slices"
	"strings"

	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker/ignore"
)

// MaxTrackedIgnored bounds Result.TrackedIgnored. A path left out counts
// as ignored where the list is read: left alone, the safe side.
const MaxTrackedIgnored = 1000

// noteTrackedIgnored notes, for Result.TrackedIgnored, what git tracks
// in directory rel (its entries judged by m) that tree lacks and a
// pattern or a built-in name ignores. Only the index is read, into the
// scratch sc.
func (c *capture) noteTrackedIgnored(sc *dirScratch, rel string, m *ignore.Matcher, tree *manifest.Tree) {
	var out []string
	if m.HasPatterns() {
		sc.tracked = m.AppendTracked(sc.tracked[:0], rel)
		if len(sc.tracked) > 0 {
			out = absentTracked(sc.tracked, rel, m, tree, nil)
		}
	}
	sc.named = m.AppendTrackedNamed(sc.named[:0], rel)
	out = absentNamed(sc.named, rel, tree, out)
	if len(out) == 0 {
		return
	}
	c.mu.Lock()
	c.trackedIgn = append(c.trackedIgn, out...)
	if len(c.trackedIgn) > 2*MaxTrackedIgnored {
		c.trackedIgn = firstPaths(c.trackedIgn) // the same whatever the order
	}
	c.mu.Unlock()
}

// firstPaths returns the first MaxTrackedIgnored of paths, sorted, each
// once.
func firstPaths(paths []string) []string {
	slices.Sort(paths)
	paths = slices.Compact(paths)
	n := min(len(paths), MaxTrackedIgnored)
	return paths[:n:n]
}

// absentTracked appends to out the entries of list (AppendTracked of
// directory rel under m) that tree lacks (nil: it lacks everything) and
// that are tracked though a pattern ignores them (SourceForced): a file
// by its path, a directory by its path and a "/" (it was absent, so was
// everything below it). A subdirectory absent that no pattern ignores
// is looked into the same way. It stops at MaxTrackedIgnored paths,
// the first ones: the index lists paths in order.
func absentTracked(list []byte, rel string, m *ignore.Matcher, tree *manifest.Tree, out []string) []string {
	for len(list) > 0 && len(out) < MaxTrackedIgnored {
		i := bytes.IndexAny(list, "\x00/")
		if i < 0 {
			break
		}
		name, isDir := list[:i], list[i] == '/'
		list = list[i+1:]
		if len(name) == 0 || treeHolds(tree, name) {
			continue
		}
		p := manifest.JoinPath(rel, string(name))
		v := m.Judge(p, isDir)
		switch {
		case v.Source == ignore.SourceForced && isDir:
			out = append(out, p+"/")
		case v.Source == ignore.SourceForced:
			out = append(out, p)
		case isDir && !v.Ignored:
			out = absentTracked(m.AppendTracked(nil, p), p, m, nil, out)
		}
	}
	return out
}

// absentNamed appends to out the directories of named (AppendTrackedNamed
// of directory rel) that tree lacks, each by its path and a "/": git
// tracks paths in them, so they were absent with all they held. Only
// the outermost of nested ones is listed. A built-in name ignores such
// a directory when it is not there, but git never ignores what it
// tracks. It stops at MaxTrackedIgnored paths.
func absentNamed(named []string, rel string, tree *manifest.Tree, out []string) []string {
	last := ""
	for _, p := range named {
		if len(out) >= MaxTrackedIgnored {
			break
		}
		if last != "" && strings.HasPrefix(p, last) {
			continue // below the one listed
		}
		first, _, _ := strings.Cut(p, "/")
		if treeHolds(tree, []byte(first)) {
			continue
		}
		last = p + "/"
		out = append(out, manifest.JoinPath(rel, p)+"/")
	}
	return out
}

// treeHolds reports whether t (nil: none) has an entry named name.
func treeHolds(t *manifest.Tree, name []byte) bool {
	if t == nil {
		return false
	}
	_, ok := slices.BinarySearchFunc(t.Entries, name, func(e manifest.Entry, n []byte) int {
		switch {
		case e.Name < string(n):
			return -1
		case e.Name == string(n):
			return 0
		}
		return 1
	})
	return ok
}

// allTracked returns Result.TrackedIgnored: what the directories read
// noted, and Base's below the directories reused (as Options.Index
// remembers them), sorted, at most MaxTrackedIgnored.
func (c *capture) allTracked() []string {
	out := c.trackedIgn
	if len(c.reused) > 0 {
		base, _ := c.opts.Index.trackedOf(c.opts.Base)
		for _, s := range base {
			for d := path.Dir(strings.TrimSuffix(s, "/")); d != "."; d = path.Dir(d) {
				if c.reused[d] {
					out = append(out, s)
					break
				}
			}
		}
	}
	return firstPaths(out)
}
