package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/turnback/turnback/cmd/turnback/termout"
)

// View draws the screen: only the rows that are on it.
func (m *Model) View() tea.View {
	v := tea.NewView(m.frame())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "turnback ui"
	return v
}

// frame is the screen as text: m.h lines of m.w cells.
func (m *Model) frame() string {
	if m.quitting {
		return ""
	}
	g := m.geometry()
	lines := make([]string, 0, m.h)
	lines = append(lines, m.titleLine())
	left := m.timelineLines(g)
	right := m.rightLines(g)
	rule := paint(m.st.frame, "│")
	for i := 0; i < g.body; i++ {
		lines = append(lines, left[i]+rule+right[i])
	}
	lines = append(lines, m.bottomLine())
	if m.modal != nil {
		m.overlay(lines, g)
	}
	if len(lines) > m.h {
		lines = lines[:m.h]
	}
	return strings.Join(lines, "\n")
}

func (m *Model) titleLine() string {
	s := " turnback ui  " + termout.SafeText(m.cfg.Folder.WorkTree)
	switch {
	case m.all:
		s += "  · every session"
	default:
		s += "  · session " + termout.SafeText(m.cfg.Session)
	}
	if m.served() {
		s += "  · live (daemon)"
	}
	return paint(m.st.bar, fit(s, m.w))
}

func (m *Model) bottomLine() string {
	if m.editing {
		f := m.filter
		what := "paths"
		if m.focus == paneTimeline {
			f, what = m.tfilter, "turns"
		}
		return fit("filter "+what+": "+termout.SafeText(f)+"█  (enter keep, esc clear)", m.w)
	}
	if m.message != "" {
		return paint(m.st.bold, fit(" "+m.message, m.w))
	}
	hints := " ? help  u undo  r redo  p path  m merge  c checkpoints  / filter  q quit"
	if m.filter != "" || m.tfilter != "" {
		hints = " filter: " + termout.SafeText(m.tfilter+m.filter) + " (esc clears)" + hints
	}
	return paint(m.st.dim, fit(hints, m.w))
}

// timelineLines draws the left pane.
func (m *Model) timelineLines(g geometry) []string {
	out := make([]string, g.body)
	w := g.left
	switch {
	case m.tl == nil && m.loadErr != "":
		out[0] = paint(m.st.warn, fit(" "+m.loadErr, w))
	case m.tl == nil:
		out[0] = fit(" loading…", w)
	}
	now := m.cfg.Now()
	for i := 0; i < g.body; i++ {
		if out[i] != "" {
			continue
		}
		k := m.top + i
		if m.tl == nil || k >= len(m.rows) {
			out[i] = fit("", w)
			if k == len(m.rows) && m.tl != nil && len(m.rows) <= 1 {
				out[i] = paint(m.st.dim, fit(" no turns yet", w))
			}
			continue
		}
		r := m.rows[k]
		s := r.render(m.tl, m.work, w, now)
		switch {
		case k == m.cur && m.focus == paneTimeline && m.modal == nil:
			s = paint(m.st.sel, s)
		case k == m.cur:
			s = paint(m.st.selDim, s)
		case r.kind == rowSession:
			s = paint(m.st.title, s)
		case r.kind == rowTurn && r.undone:
			s = paint(m.st.dim, s)
		case r.kind == rowTurn && r.mark() == "!":
			s = paint(m.st.warn, s)
		}
		out[i] = s
	}
	if m.loadErr != "" && m.tl != nil {
		out[g.body-1] = paint(m.st.warn, fit(" "+m.loadErr, w))
	}
	return out
}

// rightLines draws the right pane: header, paths, the diff.
func (m *Model) rightLines(g geometry) []string {
	w := g.right
	out := make([]string, 0, g.body)
	out = append(out, m.headerLines(w)...)
	td := m.turns[m.want]
	prows := m.pathRows()
	var r *row
	if m.cur < len(m.rows) {
		r = &m.rows[m.cur]
	}
	for i := 0; i < g.pathRows; i++ {
		k := m.ptop + i
		switch {
		case r == nil || r.kind == rowSession:
			out = append(out, fit("", w))
		case td == nil:
			out = append(out, fit(map[bool]string{true: " loading…", false: ""}[i == 0], w))
		case td.err != "":
			out = append(out, paint(m.st.warn, fit(map[bool]string{true: " " + td.err, false: ""}[i == 0], w)))
		case len(prows) == 0 && i == 0:
			msg := " no changes"
			if m.filter != "" {
				msg = " no path matches the filter"
			}
			out = append(out, paint(m.st.dim, fit(msg, w)))
		case k < len(prows):
			s := prows[k].render(td.files, td.lost, w)
			if k == m.pcur {
				s = paint(map[bool]styleT{true: m.st.sel, false: m.st.selDim}[m.focus == panePaths && m.modal == nil], s)
			} else if prows[k].note != "" {
				s = paint(m.st.dim, s)
			} else {
				s = m.markColor(s, prows[k], td)
			}
			out = append(out, s)
		default:
			out = append(out, fit("", w))
		}
	}
	title := "─"
	if m.diff != nil {
		title = "─ " + termout.QuotePath(m.diff.path) + " "
		if g.diffRows > 0 && m.diff.rows(g.sideBySide) > g.diffRows {
			title += fmt.Sprintf("(%d-%d of %d) ", m.dtop+1, min(m.dtop+g.diffRows, m.diff.rows(g.sideBySide)), m.diff.rows(g.sideBySide))
		}
	}
	if n := w - width(title); n > 0 {
		title += strings.Repeat("─", n)
	}
	out = append(out, paint(map[bool]styleT{true: m.st.title, false: m.st.frame}[m.focus == paneDiff], fit(title, w)))
	out = append(out, m.diffLines(g)...)
	for len(out) < g.body {
		out = append(out, fit("", w))
	}
	return out[:g.body]
}

// markColor colours a path row's change mark.
func (m *Model) markColor(s string, p pathRow, td *turnData) string {
	if !m.cfg.Color || p.file < 0 {
		return s
	}
	st := m.st.mod
	switch changeMark(td.files[p.file].Change) {
	case "A":
		st = m.st.add
	case "D":
		st = m.st.del
	}
	return paint(st, s[:1]) + s[1:]
}

// headerLines describe the selection: 3 lines.
func (m *Model) headerLines(w int) []string {
	h := []string{"", "", ""}
	if m.tl == nil || m.cur >= len(m.rows) {
		return []string{fit("", w), fit("", w), fit("", w)}
	}
	r := m.rows[m.cur]
	now := m.cfg.Now()
	switch r.kind {
	case rowWork:
		h[0] = "working tree · session " + termout.SafeText(m.cfg.Session)
		h[1] = "your edits since the session's last snapshot (not a turn)"
		if m.work != nil && m.work.res != nil {
			h[2] = changeCounts(m.work.res.Changes) + " · base " + m.work.res.Base.Short()
		}
	case rowSession:
		s := m.tl.sessions[r.sess].info
		h[0] = "session " + termout.SafeText(s.Name)
		if s.Agent != "" {
			h[0] += " (" + termout.SafeText(s.Agent) + ")"
		}
		h[1] = fmt.Sprintf("%s to undo, %d to redo", turnsWord(s.Turns), s.Redo)
		if !s.LastTurn.IsZero() {
			h[2] = "last turn " + termout.Ago(s.LastTurn, now) + ": " + termout.SafeText(s.LastMessage)
		}
	default:
		t := r.turn
		s := m.tl.sessions[r.sess].info
		h[0] = fmt.Sprintf("turn %d · session %s", t.N, termout.SafeText(s.Short))
		switch {
		case r.undone:
			h[0] += " · undone"
		case r.partial:
			h[0] += " · partly undone"
		case t.Open():
			h[0] += " · open"
		case t.Pulled:
			h[0] += " · pulled, not in the folder"
		}
		h[1] = termout.SafeText(t.Message)
		h[2] = t.Started.In(m.loc()).Format("2006-01-02 15:04:05") + " (" + termout.Ago(t.Started, now) + ") · " + counts(t)
	}
	out := make([]string, 3)
	for i := range h {
		out[i] = fit(" "+h[i], w)
	}
	out[0] = paint(m.st.bold, out[0])
	return out
}

// diffLines draws the rows of the diff on screen.
func (m *Model) diffLines(g geometry) []string {
	w := g.right
	var out []string
	if m.diff == nil {
		return out
	}
	fd := m.diff
	if g.sideBySide {
		ps := fd.sidePairs()
		half := (w - 1) / 2
		for i := m.dtop; i < len(ps) && len(out) < g.diffRows; i++ {
			p := ps[i]
			if p.l >= 0 && fd.lines[p.l].kind != '-' && fd.lines[p.l].kind != ' ' {
				out = append(out, m.diffRow(fd.lines[p.l], w, false))
				continue
			}
			l, r := fit("", half), fit("", w-1-half)
			if p.l >= 0 {
				l = m.diffRow(fd.lines[p.l], half, true)
			}
			if p.r >= 0 {
				ln := fd.lines[p.r]
				if ln.kind == ' ' {
					ln.old = 0
				}
				r = m.diffRow(ln, w-1-half, false)
			}
			out = append(out, l+paint(m.st.frame, "│")+r)
		}
		return out
	}
	for i := m.dtop; i < len(fd.lines) && len(out) < g.diffRows; i++ {
		out = append(out, m.diffRow(fd.lines[i], w, false))
	}
	return out
}

// diffRow is one diff line in w cells: its line number (old side on
// the left of a side-by-side row), sign and text from the column the
// diff is scrolled to.
func (m *Model) diffRow(l diffLine, w int, oldSide bool) string {
	switch l.kind {
	case 'i':
		return paint(m.st.warn, fit(" "+l.text, w))
	case '@':
		return paint(m.st.hunk, fit(l.text, w))
	}
	num := l.new
	if oldSide || l.kind == '-' {
		num = l.old
	}
	gutter := fmt.Sprintf("%4d ", num)
	if w < 50 {
		gutter = ""
	}
	sign := string(l.kind)
	text := l.text
	if m.hl != nil {
		text = m.hl.line(text)
	}
	room := w - width(gutter) - 2
	if room <= 0 {
		return fit(gutter+sign, w)
	}
	body := ansi.Cut(text, m.dleft, m.dleft+room)
	if m.cfg.Color {
		body += "\x1b[0m"
	}
	switch l.kind {
	case '+':
		sign = paint(m.st.add, "+")
	case '-':
		sign = paint(m.st.del, "-")
	}
	return paint(m.st.dim, gutter) + sign + " " + fit(body, room)
}

// overlay draws the open box over the panes.
func (m *Model) overlay(lines []string, g geometry) {
	d := m.modal
	bw := min(m.w-2, 100)
	inner := bw - 4
	var body []string
	if d.kind == modalCheckpoints && len(d.cps) > 0 {
		for i, c := range d.cps {
			s := fit(m.checkpointLine(c), inner)
			if i == d.cur {
				s = paint(m.st.sel, s)
			}
			body = append(body, s)
		}
	} else {
		for _, l := range d.lines {
			st, warn := m.st.warn, strings.HasPrefix(l, "!")
			l = strings.TrimPrefix(l, "!")
			for i, part := range strings.Split(ansi.Wrap(l, inner, ""), "\n") {
				if i > 0 {
					part = "    " + part // a wrapped line's rest, indented
				}
				if warn {
					body = append(body, paint(st, fit(part, inner)))
					continue
				}
				body = append(body, fit(part, inner))
			}
		}
	}
	rows := max(min(len(body), g.body-4), 1)
	top := clampInt(d.top, 0, max(len(body)-rows, 0))
	if d.kind == modalCheckpoints {
		top = scrollTo(0, d.cur, rows, len(body))
	}
	box := []string{paint(m.st.frame, "┌"+fitRule(" "+termout.SafeText(d.title)+" ", bw-2)+"┐")}
	for i := 0; i < rows; i++ {
		s := fit("", inner)
		if top+i < len(body) {
			s = body[top+i]
		}
		box = append(box, paint(m.st.frame, "│")+" "+s+" "+paint(m.st.frame, "│"))
	}
	more := ""
	if len(body) > rows {
		more = fmt.Sprintf("  (%d-%d of %d, ↑↓)", top+1, top+rows, len(body))
	}
	box = append(box, paint(m.st.frame, "│")+" "+paint(m.st.key, fit(d.keys+more, inner))+" "+paint(m.st.frame, "│"))
	box = append(box, paint(m.st.frame, "└"+strings.Repeat("─", bw-2)+"┘"))
	y := 1 + max((g.body-len(box))/2, 0)
	x := (m.w - bw) / 2
	for i, b := range box {
		if y+i >= len(lines)-1 {
			break
		}
		base := lines[y+i]
		reset := ""
		if m.cfg.Color {
			reset = "\x1b[0m"
		}
		lines[y+i] = ansi.Cut(base, 0, x) + reset + b + reset + ansi.Cut(base, x+bw, m.w)
	}
}

// fitRule is s followed by a rule to n cells.
func fitRule(s string, n int) string {
	s = fit(s, min(width(s), n))
	return s + strings.Repeat("─", max(n-width(s), 0))
}
