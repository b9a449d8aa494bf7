package ui

import (
	"sort"
	"strings"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// pathRow is one line of the path list: a directory (collapsible) or a
// changed path.
type pathRow struct {
	path  string // slash-separated, relative to the work tree
	name  string // what is shown after the indent
	depth int
	dir   bool
	file  int // index of the path's change in the turn's files, -1 for none
	n     int // changed paths below a directory
	open  bool
	// note: a path the newer state skips, not a change: the line that
	// says so.
	note string
}

// closedByDefault: a turn with more paths than this lists its
// directories collapsed.
const closedByDefault = 30

// pathNode is a directory of the path tree.
type pathNode struct {
	name string
	path string
	file int
	kids map[string]*pathNode
	n    int
}

// buildPathRows lays out files as a tree of directories. toggled flips
// a directory from its default state (open, or closed for a turn of
// more than closedByDefault paths); filter keeps the paths holding it.
func buildPathRows(files []turnback.FileDiff, toggled map[string]bool, filter string) []pathRow {
	root := &pathNode{file: -1, kids: map[string]*pathNode{}}
	f := strings.ToLower(filter)
	count := 0
	for i, d := range files {
		if f != "" && !strings.Contains(strings.ToLower(d.Path), f) {
			continue
		}
		count++
		n := root
		parts := strings.Split(d.Path, "/")
		for j, part := range parts {
			k := n.kids[part]
			if k == nil {
				k = &pathNode{name: part, path: strings.Join(parts[:j+1], "/"), file: -1, kids: map[string]*pathNode{}}
				n.kids[part] = k
			}
			k.n++
			n = k
		}
		n.file = i
	}
	closed := count > closedByDefault
	var rows []pathRow
	var walk func(n *pathNode, depth int)
	walk = func(n *pathNode, depth int) {
		names := make([]string, 0, len(n.kids))
		for k := range n.kids {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, name := range names {
			k := n.kids[name]
			if len(k.kids) == 0 {
				rows = append(rows, pathRow{path: k.path, name: termout.DisplayPath(k.name), depth: depth, file: k.file})
				continue
			}
			open := closed == toggled[k.path]
			rows = append(rows, pathRow{path: k.path, name: termout.DisplayPath(k.name) + "/", depth: depth, dir: true, file: k.file, n: k.n - btoi(k.file >= 0), open: open})
			if open {
				walk(k, depth+1)
			}
		}
	}
	walk(root, 0)
	return rows
}

// skippedRows are a line per path the newer state skips, after the
// changes; filter keeps the paths holding it.
func skippedRows(skipped []turnback.Ignored, words, filter string) []pathRow {
	var rows []pathRow
	f := strings.ToLower(filter)
	for _, ig := range skipped {
		if f == "" || strings.Contains(strings.ToLower(ig.Path), f) {
			rows = append(rows, pathRow{path: ig.Path, file: -1, note: termout.SkippedNowLine(words, ig)})
		}
	}
	return rows
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// changeMark is the letter show gives a change (A, M, D, T, P).
func changeMark(c turnback.Change) string {
	switch c.Kind {
	case turnback.Added:
		return "A"
	case turnback.Deleted:
		return "D"
	case turnback.TypeChanged:
		return "T"
	case turnback.ModeChanged:
		return "P"
	}
	return "M"
}

// render draws the row in w cells, marks unstyled.
func (p pathRow) render(files []turnback.FileDiff, lost map[string]bool, w int) string {
	if p.note != "" {
		return fit("  "+p.note, w)
	}
	indent := strings.Repeat("  ", p.depth)
	mark := " "
	if p.file >= 0 {
		mark = changeMark(files[p.file].Change)
	}
	if p.dir {
		arrow := "▸ "
		if p.open {
			arrow = "▾ "
		}
		s := mark + " " + indent + arrow + p.name
		if !p.open {
			s += " (" + itoa(p.n) + ")"
		}
		return fit(s, w)
	}
	s := mark + " " + indent + p.name
	if p.file >= 0 {
		if e := files[p.file].New; e != nil && e.Uncaptured || files[p.file].Old != nil && files[p.file].Old.Uncaptured {
			s += " (not captured)"
		}
		if lost[files[p.file].Path] {
			s += " (unprotected)"
		}
	}
	return fit(s, w)
}
