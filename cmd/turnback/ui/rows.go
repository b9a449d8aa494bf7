package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// rowKind is what a timeline row shows.
type rowKind int

const (
	rowWork    rowKind = iota // the working tree: edits since the last snapshot
	rowSession                // a session's header
	rowTurn                   // one turn
)

// row is one line of the timeline.
type row struct {
	kind    rowKind
	sess    int // index in timeline.sessions
	turn    *turnback.Turn
	undone  bool // on the redo stack only
	partial bool // partly undone: on both stacks
	lost    []string
	// count is what undo (on the undo stack) or redo (undone turns)
	// needs to reach this turn: undo back to before it, redo up to it.
	count int
}

// buildRows lays the timeline out: per session its header, then its
// turns newest first (undone ones among them, by number). filter keeps
// the turns whose message or number holds it.
func buildRows(tl *timeline, work bool, filter string) []row {
	var rows []row
	if work {
		rows = append(rows, row{kind: rowWork})
	}
	if tl == nil {
		return rows
	}
	f := strings.ToLower(filter)
	for si, s := range tl.sessions {
		rows = append(rows, row{kind: rowSession, sess: si})
		var turns []row
		onUndo := map[int]bool{}
		for i, t := range s.turns {
			onUndo[t.N] = true
			turns = append(turns, row{kind: rowTurn, sess: si, turn: t, count: i + 1, lost: s.lost[t.N]})
		}
		seen := map[int]bool{}
		for j, t := range s.redo {
			if onUndo[t.N] {
				for k := range turns {
					if turns[k].turn.N == t.N {
						turns[k].partial = true
					}
				}
				continue
			}
			if seen[t.N] {
				continue
			}
			seen[t.N] = true
			turns = append(turns, row{kind: rowTurn, sess: si, turn: t, undone: true, count: len(s.redo) - j, lost: s.lost[t.N]})
		}
		slices.SortStableFunc(turns, func(a, b row) int { return b.turn.N - a.turn.N })
		for _, r := range turns {
			if f == "" || strings.Contains(strings.ToLower(r.turn.Message), f) || fmt.Sprint(r.turn.N) == f {
				rows = append(rows, r)
			}
		}
	}
	return rows
}

// mark is a turn's one-letter mark (see the help).
func (r row) mark() string {
	switch {
	case r.turn.Open():
		return "o"
	case len(r.lost) > 0:
		return "!"
	case r.partial:
		return "p"
	case r.undone:
		return "u"
	case r.turn.Pulled:
		return "n"
	}
	return " "
}

// counts is "+A ~M -D", or "open".
func counts(t *turnback.Turn) string {
	if t.Open() {
		return "(open)"
	}
	return fmt.Sprintf("+%d ~%d -%d", t.Added, t.Modified, t.Deleted)
}

// render draws r in w cells (plain text; the caller styles it).
func (r row) render(tl *timeline, work *workState, w int, now time.Time) string {
	switch r.kind {
	case rowWork:
		c := "…"
		switch {
		case work == nil || work.res == nil && work.err == "":
		case work.err != "":
			c = "(" + work.err + ")"
		case len(work.res.Changes) == 0:
			c = "clean"
		default:
			c = changeCounts(work.res.Changes)
		}
		left := "   * working tree"
		if room := w - width(left) - width(c) - 1; room >= 1 {
			return fit(left, w-width(c)-1) + " " + c
		}
		return fit(left+" "+c, w)
	case rowSession:
		s := tl.sessions[r.sess].info
		h := s.Short
		if h == "" {
			h = s.Name
		}
		h = termout.SafeText(h)
		if s.Agent != "" {
			h += " · " + termout.SafeText(s.Agent)
		}
		if !s.LastTurn.IsZero() {
			h += " · " + termout.Ago(s.LastTurn, now)
		}
		return fit("session "+h, w)
	}
	t := r.turn
	c := counts(t)
	left := fmt.Sprintf("%4d %s ", t.N, r.mark())
	msg := termout.SafeText(t.Message)
	if msg == "" {
		msg = "-"
	}
	room := w - width(left) - width(c) - 1
	if room < 4 {
		return fit(left+msg, w)
	}
	return left + fit(msg, room) + " " + c
}

// changeCounts is "+A ~M -D" of a list of changes.
func changeCounts(cs []turnback.Change) string {
	var a, m, d int
	for _, c := range cs {
		switch c.Kind {
		case turnback.Added:
			a++
		case turnback.Deleted:
			d++
		default:
			m++
		}
	}
	return fmt.Sprintf("+%d ~%d -%d", a, m, d)
}
