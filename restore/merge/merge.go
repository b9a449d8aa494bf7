package merge

import (
	"bytes"
	"errors"
	"fmt"
	"sort"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// MaxSize is the largest version, in bytes, that Three merges.
const MaxSize = 4 << 20

// Errors for content Three does not merge.
var (
	ErrBinary   = errors.New("merge: binary content (a NUL byte)")
	ErrTooLarge = fmt.Errorf("merge: content over %d bytes", MaxSize)
)

// Options say how Three writes a conflict.
type Options struct {
	// Markers writes conflicting groups between conflict markers
	// instead of failing.
	Markers bool
	// OursLabel and TheirsLabel follow "<<<<<<< " and ">>>>>>> ".
	OursLabel, TheirsLabel string
}

// Result is the outcome of a merge.
type Result struct {
	// Text is the merged content; nil when Conflicts > 0 without
	// Options.Markers.
	Text []byte
	// Conflicts counts the groups both sides changed differently.
	Conflicts int
}

// Mergeable reports why content cannot be merged (ErrBinary,
// ErrTooLarge), or nil.
func Mergeable(b []byte) error {
	switch {
	case len(b) > MaxSize:
		return ErrTooLarge
	case bytes.IndexByte(b, 0) >= 0:
		return ErrBinary
	}
	return nil
}

// Three merges base→theirs into ours (see the package doc).
func Three(base, ours, theirs []byte, o Options) (Result, error) {
	for _, b := range [][]byte{base, ours, theirs} {
		if err := Mergeable(b); err != nil {
			return Result{}, err
		}
	}
	O, A, B := Lines(base), Lines(ours), Lines(theirs)
	hunks := append(diff(O, A, sideOurs), diff(O, B, sideTheirs)...)
	sort.SliceStable(hunks, func(i, j int) bool {
		if hunks[i].start != hunks[j].start {
			return hunks[i].start < hunks[j].start
		}
		return hunks[i].side < hunks[j].side
	})
	eol := "\n"
	if len(O) > 0 && bytes.HasSuffix(O[0], []byte("\r\n")) {
		eol = "\r\n"
	}
	var out bytes.Buffer
	res := Result{}
	pos := 0
	for i := 0; i < len(hunks); {
		lo, hi := hunks[i].start, hunks[i].end
		j := i + 1
		for j < len(hunks) && hunks[j].start <= hi {
			hi = max(hi, hunks[j].end)
			j++
		}
		group := hunks[i:j]
		i = j
		write(&out, O[pos:lo])
		pos = hi
		a, hasA := side(O, A, group, lo, hi, sideOurs)
		b, hasB := side(O, B, group, lo, hi, sideTheirs)
		switch {
		case !hasB:
			out.Write(a)
		case !hasA, bytes.Equal(a, b):
			out.Write(b)
		default:
			res.Conflicts++
			marker(&out, "<<<<<<<", o.OursLabel, eol)
			out.Write(a)
			if len(a) > 0 && a[len(a)-1] != '\n' {
				out.WriteString(eol)
			}
			marker(&out, "=======", "", eol)
			out.Write(b)
			if len(b) > 0 && b[len(b)-1] != '\n' {
				out.WriteString(eol)
			}
			marker(&out, ">>>>>>>", o.TheirsLabel, eol)
		}
	}
	write(&out, O[pos:])
	if res.Conflicts > 0 && !o.Markers {
		return res, nil
	}
	res.Text = out.Bytes()
	if res.Text == nil {
		res.Text = []byte{}
	}
	return res, nil
}

// Lines splits b after every '\n'; a last line without one is a line too.
func Lines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

const (
	sideOurs = iota
	sideTheirs
)

// hunk replaces base lines [start, end) with lines [rs, re) of one side.
type hunk struct {
	start, end, rs, re, side int
}

func diff(base, other [][]byte, s int) []hunk {
	a, b := strs(base), strs(other)
	var out []hunk
	for _, d := range lcs.DiffLines(a, b) {
		out = append(out, hunk{start: d.Start, end: d.End, rs: d.ReplStart, re: d.ReplEnd, side: s})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

func strs(ls [][]byte) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = string(l)
	}
	return out
}

// side is base lines [lo, hi) with the group's hunks of side s applied,
// and whether it has any.
func side(base, other [][]byte, group []hunk, lo, hi, s int) ([]byte, bool) {
	var out bytes.Buffer
	p, has := lo, false
	for _, h := range group {
		if h.side != s {
			continue
		}
		has = true
		write(&out, base[p:h.start])
		write(&out, other[h.rs:h.re])
		p = h.end
	}
	write(&out, base[p:hi])
	return out.Bytes(), has
}

func write(w *bytes.Buffer, lines [][]byte) {
	for _, l := range lines {
		w.Write(l)
	}
}

func marker(w *bytes.Buffer, m, label, eol string) {
	w.WriteString(m)
	if label != "" {
		w.WriteString(" " + label)
	}
	w.WriteString(eol)
}
