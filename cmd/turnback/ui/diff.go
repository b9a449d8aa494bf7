package ui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// diffLine is one line of a path's diff.
type diffLine struct {
	kind     byte // ' ' context, '+', '-', '@' hunk header, 'i' a note
	old, new int  // line numbers (0: none)
	text     string
}

// fileDiff is the diff of one path, computed once and drawn a screen at
// a time.
type fileDiff struct {
	path  string
	lines []diffLine
	// pairs is the side-by-side layout (built when first drawn so).
	pairs []sidePair
	width int // the widest line, in cells (for scrolling right)
}

// sidePair is one row of the side-by-side layout: -1 for an empty side.
type sidePair struct{ l, r int }

// newFileDiff computes d's lines; lost says that its content before the
// turn is neither stored nor held by a reference.
func newFileDiff(d turnback.FileDiff, lost bool) *fileDiff {
	fd := &fileDiff{path: d.Path}
	note := func(format string, a ...any) {
		fd.lines = append(fd.lines, diffLine{kind: 'i', text: fmt.Sprintf(format, a...)})
	}
	if lost {
		note("unprotected: the content before the turn was over the size limit and is held by no reference; undo cannot bring it back")
	}
	for _, e := range []struct {
		side string
		e    *turnback.Entry
		data []byte
	}{{"before", d.Old, d.OldData}, {"after", d.New, d.NewData}} {
		switch {
		case e.e == nil:
		case e.e.Uncaptured:
			note("%s: not captured (%s, over the size limit): its content is not in the store", e.side, termout.HumanBytes(e.e.Size))
		case e.e.Kind == turnback.KindFile && e.data == nil && e.e.Size > 0:
			note("%s: %s, too large to show", e.side, termout.HumanBytes(e.e.Size))
		}
	}
	text, binary := termout.Unified(d)
	if binary {
		note("binary file: %s → %s", sizeOf(d.Old), sizeOf(d.New))
	}
	var o, n int
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		switch {
		case l == "", strings.HasPrefix(l, "diff --turnback "), strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "),
			strings.HasPrefix(l, "Binary files "):
		case strings.HasPrefix(l, "@@"):
			o, n = hunkStart(l)
			fd.lines = append(fd.lines, diffLine{kind: '@', text: l})
		case strings.HasPrefix(l, "+"):
			fd.lines = append(fd.lines, diffLine{kind: '+', new: n, text: l[1:]})
			n++
		case strings.HasPrefix(l, "-"):
			fd.lines = append(fd.lines, diffLine{kind: '-', old: o, text: l[1:]})
			o++
		case strings.HasPrefix(l, " "):
			fd.lines = append(fd.lines, diffLine{kind: ' ', old: o, new: n, text: l[1:]})
			o++
			n++
		case strings.HasPrefix(l, `\`):
			note("%s", strings.TrimPrefix(l, `\ `))
		default: // mode lines
			note("%s", l)
		}
	}
	if len(fd.lines) == 0 {
		switch {
		case d.New != nil && d.New.Kind == turnback.KindDir || d.Old != nil && d.Old.Kind == turnback.KindDir:
			note("directory")
		default:
			note("no difference in content")
		}
	}
	for i := range fd.lines {
		fd.lines[i].text = expandTabs(fd.lines[i].text)
		fd.width = max(fd.width, width(fd.lines[i].text))
	}
	return fd
}

// sizeOf is an entry's size for a note ("-" for none).
func sizeOf(e *turnback.Entry) string {
	if e == nil {
		return "-"
	}
	return termout.HumanBytes(e.Size)
}

// hunkStart reads the first old and new line numbers of "@@ -a,b +c,d @@".
func hunkStart(l string) (int, int) {
	f := strings.Fields(l)
	if len(f) < 3 {
		return 0, 0
	}
	num := func(s string) int {
		s = strings.TrimLeft(s, "-+")
		if i := strings.IndexByte(s, ','); i >= 0 {
			s = s[:i]
		}
		v, _ := strconv.Atoi(s)
		return v
	}
	return num(f[1]), num(f[2])
}

// expandTabs turns tabs into spaces (4 columns) and control characters
// into safe text, so that a line takes the cells its width says.
func expandTabs(s string) string {
	if !strings.ContainsAny(s, "\t") && termout.SafeText(s) == s {
		return s
	}
	var b strings.Builder
	col := 0
	for _, part := range strings.SplitAfter(s, "\t") {
		tab := strings.HasSuffix(part, "\t")
		part = termout.SafeText(strings.TrimSuffix(part, "\t"))
		b.WriteString(part)
		col += width(part)
		if tab {
			pad := 4 - col%4
			b.WriteString(strings.Repeat(" ", pad))
			col += pad
		}
	}
	return b.String()
}

// sidePairs lays lines out side by side: context on both sides, a block
// of deletions beside the insertions that follow it.
func (fd *fileDiff) sidePairs() []sidePair {
	if fd.pairs != nil {
		return fd.pairs
	}
	ps := []sidePair{}
	ls := fd.lines
	for i := 0; i < len(ls); {
		switch ls[i].kind {
		case '-', '+':
			var dels, adds []int
			for ; i < len(ls) && ls[i].kind == '-'; i++ {
				dels = append(dels, i)
			}
			for ; i < len(ls) && ls[i].kind == '+'; i++ {
				adds = append(adds, i)
			}
			for k := 0; k < max(len(dels), len(adds)); k++ {
				p := sidePair{-1, -1}
				if k < len(dels) {
					p.l = dels[k]
				}
				if k < len(adds) {
					p.r = adds[k]
				}
				ps = append(ps, p)
			}
		default:
			ps = append(ps, sidePair{i, i})
			i++
		}
	}
	fd.pairs = ps
	return ps
}

// rows is how many screen rows the diff takes in a layout.
func (fd *fileDiff) rows(side bool) int {
	if side {
		return len(fd.sidePairs())
	}
	return len(fd.lines)
}

func itoa(n int) string { return strconv.Itoa(n) }
