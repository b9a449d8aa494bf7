package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// modalKind is what a box over the panes is for.
type modalKind int

const (
	modalHelp modalKind = iota
	modalPlan
	modalConflict
	modalError
	modalCheckpoints
)

// modal is a box over the panes that takes the keys until it closes.
type modal struct {
	kind  modalKind
	title string
	lines []string // the body, plain text; "!" first marks a warning line
	keys  string   // the keys it takes, shown at its foot
	top   int
	a     action
	res   *turnback.RestoreResult
	cps   []turnback.Checkpoint
	cur   int // the checkpoint cursor
}

func (d *modal) scroll(n int) {
	if d.kind == modalCheckpoints {
		d.cur = clampInt(d.cur+n, 0, len(d.cps)-1)
		return
	}
	d.top = clampInt(d.top+n, 0, max(len(d.lines)-1, 0))
}

// keyHelp is every key, as ? shows it (and docs/ui.md lists it).
var keyHelp = [][2]string{
	{"↑ ↓  k j", "move in the pane (the diff: scroll)"},
	{"tab  shift+tab", "next pane, previous pane (timeline, paths, diff)"},
	{"enter  → l", "open: turn → its paths → the diff; a directory: expand"},
	{"← h  esc", "back; esc also clears the filter"},
	{"space", "paths: expand or collapse a directory; else page down"},
	{"pgdn pgup  ctrl+d ctrl+u", "page down, page up"},
	{"g  G  home  end", "first, last"},
	{"mouse wheel, click", "scroll the pane under the mouse, select a row"},
	{"/", "filter the focused pane (turns by message, paths by name)"},
	{"u", "undo back to before the selected turn (and the turns after it)"},
	{"r", "redo (on an undone turn: up to it)"},
	{"p", "undo only the selected path or directory"},
	{"m", "undo keeping your edits (merge)"},
	{"c", "checkpoints; enter restores one"},
	{"a", "every session / the session picked"},
	{"ctrl+l", "reload now"},
	{"?", "this help"},
	{"q  ctrl+c", "quit"},
}

// markHelp explains the timeline's marks.
var markHelp = [][2]string{
	{"o", "open: the turn has not ended"},
	{"u", "undone: r brings it back"},
	{"p", "partly undone (undo of some paths)"},
	{"!", "unprotected: content over the size limit undo cannot bring back"},
	{"n", "not in the folder: pulled; turnback pull --apply brings it in"},
	{"*", "working tree: your edits since the last snapshot"},
}

func helpModal() *modal {
	d := &modal{kind: modalHelp, title: "turnback ui: keys", keys: "esc close"}
	for _, k := range keyHelp {
		d.lines = append(d.lines, fmt.Sprintf("%-26s %s", k[0], k[1]))
	}
	d.lines = append(d.lines, "", "Every action shows its plan first and changes nothing until y.", "", "Marks in the timeline:")
	for _, k := range markHelp {
		d.lines = append(d.lines, fmt.Sprintf("  %-3s %s", k[0], k[1]))
	}
	return d
}

func errorModal(what string, err error) *modal {
	d := &modal{kind: modalError, title: "failed: " + what, keys: "any key closes"}
	for _, l := range strings.Split(err.Error(), "\n") {
		d.lines = append(d.lines, "!"+termout.SafeText(l))
	}
	d.lines = append(d.lines, "", "nothing was changed unless said above")
	return d
}

// planModal shows what a would do, and asks.
func planModal(a action, res *turnback.RestoreResult) *modal {
	d := &modal{kind: modalPlan, title: a.what, a: a, res: res, keys: "y apply   n cancel"}
	p := res.DryRun
	if p == nil {
		p = &turnback.Preview{}
	}
	for _, t := range res.Moved {
		d.lines = append(d.lines, fmt.Sprintf("turn %4d  %s", t.N, termout.SafeText(t.Message)))
	}
	if len(res.Moved) > 0 {
		d.lines = append(d.lines, "")
	}
	merged := map[string]bool{}
	for _, x := range p.Merged {
		merged[x] = true
	}
	list := func(verb string, paths []string) {
		for _, x := range paths {
			d.lines = append(d.lines, fmt.Sprintf("  %-12s %s", verb, termout.QuotePath(x)))
		}
	}
	var plain []string
	for _, x := range p.Restored {
		if !merged[x] {
			plain = append(plain, x)
		}
	}
	list("rewrite", plain)
	list("remove", p.Deleted)
	list("bring back", p.Created)
	markers := map[string]bool{}
	for _, x := range p.Markers {
		markers[x] = true
	}
	for _, x := range p.Merged {
		verb := "merge"
		if markers[x] {
			verb = "markers"
		}
		d.lines = append(d.lines, fmt.Sprintf("  %-12s %s", verb, termout.QuotePath(x)))
	}
	for _, c := range p.Conflicts {
		d.lines = append(d.lines, fmt.Sprintf("! overwrite  %s: %s (your edit is kept in the checkpoint)", termout.QuotePath(c.Path), termout.SafeText(c.Reason)))
	}
	for _, c := range p.NotRestorable {
		d.lines = append(d.lines, fmt.Sprintf("! leave      %s: %s", termout.QuotePath(c.Path), termout.SafeText(c.Reason)))
	}
	if len(p.Restored)+len(p.Deleted)+len(p.Created)+len(p.Conflicts)+len(p.NotRestorable) == 0 {
		d.lines = append(d.lines, "  no file changes")
	}
	d.lines = append(d.lines, "", "The state it replaces is kept as a checkpoint first (c lists them).", "Apply? y/n")
	return d
}

// conflictModal shows why a stopped and the ways on: merge, markers
// (when the merge itself is refused), force, cancel.
func conflictModal(a action, res *turnback.RestoreResult) *modal {
	d := &modal{kind: modalConflict, a: a, res: res}
	d.title = "conflict: " + a.what
	if a.merge != turnback.MergeNone {
		d.lines = append(d.lines, "The merge cannot keep your edits where they overlap the turn's:")
	} else {
		d.lines = append(d.lines, "These paths were edited since the turn:")
	}
	if res != nil {
		for _, c := range res.Conflicts {
			d.lines = append(d.lines, "!  "+termout.QuotePath(c.Path)+": "+termout.SafeText(c.Reason))
		}
	}
	d.lines = append(d.lines, "", "Nothing was changed.", "")
	var keys []string
	switch {
	case a.kind != "undo":
	case a.merge == turnback.MergeNone:
		d.lines = append(d.lines, "m  merge: undo the turn's changes and keep your edits")
		keys = append(keys, "m merge")
	case a.merge == turnback.MergeClean:
		d.lines = append(d.lines, "k  markers: merge, with conflict markers where they overlap")
		keys = append(keys, "k markers")
	}
	d.lines = append(d.lines, "f  force: overwrite your edits (kept in a checkpoint)", "esc  cancel")
	d.keys = strings.Join(append(keys, "f force", "esc cancel"), "   ")
	return d
}

// checkpointModal lists the checkpoints.
func (m *Model) checkpointModal() *modal {
	d := &modal{kind: modalCheckpoints, title: "checkpoints (the states undo, redo and restore replaced)", keys: "enter restore   esc close"}
	if m.tl == nil {
		d.lines = []string{"loading…"}
		return d
	}
	d.cps = m.tl.checkpoints
	switch {
	case m.tl.noCheckpoints != "":
		d.lines = []string{"!" + oneLine(m.tl.noCheckpoints)}
	case len(d.cps) == 0:
		d.lines = []string{"no checkpoints yet: undo, redo and restore record one"}
	}
	return d
}

// checkpointLine is one checkpoint in w cells.
func (m *Model) checkpointLine(c turnback.Checkpoint) string {
	return fmt.Sprintf("%s  %-16s  %-14s  after turn %d of %s", termout.ShortID(c.ID), c.Time.In(m.loc()).Format("2006-01-02 15:04"),
		termout.Ago(c.Time, m.cfg.Now()), c.Turn, termout.SafeText(c.Session)) + termout.PartialNote(c.Partial)
}

// restoreWhat names the restore of checkpoint c in its plan.
func restoreWhat(c turnback.Checkpoint) string {
	what := "restore checkpoint " + termout.ShortID(c.ID)
	if p := c.Partial; p != nil {
		return fmt.Sprintf("%s (only the %d path%s it holds)", what, p.Paths, termout.Plural(p.Paths))
	}
	return what + " (the whole folder)"
}

// modalKey handles a key while a box is open.
func (m *Model) modalKey(k tea.KeyPressMsg) tea.Cmd {
	d := m.modal
	s := k.String()
	switch s {
	case "ctrl+c":
		m.quitting = true
		return tea.Quit
	case "up", "k":
		if d.kind != modalConflict {
			d.scroll(-1)
			return nil
		}
	case "down", "j":
		d.scroll(1)
		return nil
	case "pgdown", "space":
		d.scroll(10)
		return nil
	case "pgup":
		d.scroll(-10)
		return nil
	}
	switch d.kind {
	case modalHelp:
		if s == "esc" || s == "q" || s == "?" || s == "enter" {
			m.modal = nil
		}
	case modalError:
		m.modal = nil
	case modalPlan:
		switch s {
		case "y", "Y":
			m.modal = nil
			return m.runCmd(d.a)
		case "n", "N", "esc", "q":
			m.modal = nil
			m.message = "cancelled: nothing changed"
		}
	case modalConflict:
		a := d.a
		switch {
		case s == "m" && a.kind == "undo" && a.merge == turnback.MergeNone:
			a.merge, a.what = turnback.MergeClean, a.what+", keeping your edits"
		case s == "k" && a.kind == "undo" && a.merge == turnback.MergeClean:
			a.merge, a.what = turnback.MergeMarkers, strings.TrimSuffix(a.what, ", keeping your edits")+", with conflict markers where edits overlap"
		case s == "f":
			a.force, a.merge, a.what = true, turnback.MergeNone, strings.TrimSuffix(a.what, ", keeping your edits")+", overwriting your edits"
		case s == "esc" || s == "n" || s == "q" || s == "c":
			m.modal = nil
			m.message = "cancelled: nothing changed"
			return nil
		default:
			return nil
		}
		m.modal = nil
		return m.planCmd(a)
	case modalCheckpoints:
		switch s {
		case "esc", "q", "c":
			m.modal = nil
		case "g", "home":
			d.cur = 0
		case "G", "end":
			d.cur = max(len(d.cps)-1, 0)
		case "enter":
			if d.cur < len(d.cps) {
				c := d.cps[d.cur]
				m.modal = nil
				return m.planCmd(action{kind: "restore", session: m.cfg.Session, id: c.ID,
					what: restoreWhat(c)})
			}
		}
	}
	return nil
}

// oneLine is s on one line.
func oneLine(s string) string {
	return termout.SafeText(strings.ReplaceAll(s, "\n", " "))
}
