package ui

import (
	tea "charm.land/bubbletea/v2"
)

// geometry is where the panes are on a screen of w×h.
type geometry struct {
	left        int // the timeline's width
	right       int // the right pane's width (after a 1-cell rule)
	body        int // rows between the title and the bottom line
	head        int // the right pane's header rows
	pathTop     int // first row of the path list (screen row)
	pathRows    int
	diffTop     int // first row of the diff (after its title row)
	diffRows    int
	sideBySide  bool
	timelineTop int
}

func (m *Model) geometry() geometry {
	g := geometry{timelineTop: 1}
	g.left = min(max(m.w*2/5, 28), 56)
	if m.w < 60 {
		g.left = m.w / 2
	}
	g.right = max(m.w-g.left-1, 0)
	g.body = max(m.h-2, 1)
	g.head = 3
	n := len(m.pathRows())
	g.pathRows = min(max(n, 1), max(3, (g.body-g.head)/3))
	g.pathTop = 1 + g.head
	g.diffTop = g.pathTop + g.pathRows + 1
	g.diffRows = max(g.body-g.head-g.pathRows-1, 0)
	g.sideBySide = g.right >= 100
	return g
}

// key handles a key press.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if m.modal != nil {
		return m.modalKey(k)
	}
	if m.editing {
		return m.editKey(k)
	}
	m.message = ""
	switch s {
	case "q", "ctrl+c":
		m.quitting = true
		return tea.Quit
	case "?":
		m.modal = helpModal()
		return nil
	case "tab":
		m.focus = (m.focus + 1) % 3
	case "shift+tab":
		m.focus = (m.focus + 2) % 3
	case "up", "k":
		return m.move(-1)
	case "down", "j":
		return m.move(1)
	case "pgup", "ctrl+b", "ctrl+u":
		return m.move(-m.page())
	case "pgdown", "ctrl+f", "ctrl+d", "space":
		if s == "space" && m.focus == panePaths {
			m.toggleDir()
			return nil
		}
		return m.move(m.page())
	case "g", "home":
		return m.move(-1 << 30)
	case "G", "end":
		return m.move(1 << 30)
	case "enter", "right", "l":
		return m.enter(s)
	case "left", "h", "esc", "backspace":
		return m.back(s)
	case "/":
		m.editing = true
		if m.focus == paneTimeline {
			m.tfilter = ""
			m.rebuildRows()
			return m.selectCmd()
		}
		m.filter = ""
		m.pathsChanged()
	case "a":
		m.all = !m.all
		return m.loadCmd()
	case "ctrl+l":
		delete(m.turns, workKey)
		return tea.Batch(m.loadCmd(), m.workCmd())
	case "u", "r", "p", "m":
		return m.startAction(s)
	case "c":
		m.modal = m.checkpointModal()
	}
	return nil
}

// page is the rows a page key moves in the focused pane.
func (m *Model) page() int {
	g := m.geometry()
	switch m.focus {
	case panePaths:
		return max(g.pathRows-1, 1)
	case paneDiff:
		return max(g.diffRows-1, 1)
	}
	return max(g.body-1, 1)
}

// move moves the focused pane's cursor (or the diff) by d rows.
func (m *Model) move(d int) tea.Cmd {
	switch m.focus {
	case paneTimeline:
		m.cur = clampInt(m.cur+d, 0, len(m.rows)-1)
		m.clamp()
		return m.selectCmd()
	case panePaths:
		m.pcur = clampInt(m.pcur+d, 0, len(m.pathRows())-1)
		m.pathsChanged()
	case paneDiff:
		m.dtop += d
		m.clamp()
	}
	return nil
}

func (m *Model) enter(s string) tea.Cmd {
	switch m.focus {
	case paneTimeline:
		m.focus = panePaths
	case panePaths:
		rows := m.pathRows()
		if m.pcur < len(rows) && rows[m.pcur].dir && (s == "enter" || !rows[m.pcur].open) {
			m.toggleDir()
			return nil
		}
		m.focus = paneDiff
	case paneDiff:
		if s != "enter" {
			m.dleft += 8
			m.clamp()
		}
	}
	return nil
}

func (m *Model) back(s string) tea.Cmd {
	switch {
	case s == "esc" && (m.filter != "" || m.tfilter != ""):
		m.filter, m.tfilter = "", ""
		m.rebuildRows()
		m.pathsChanged()
		return m.selectCmd()
	case m.focus == paneDiff && (s == "left" || s == "h") && m.dleft > 0:
		m.dleft = max(m.dleft-8, 0)
	case m.focus == panePaths && (s == "left" || s == "h"):
		rows := m.pathRows()
		if m.pcur < len(rows) && rows[m.pcur].dir && rows[m.pcur].open {
			m.toggleDir()
			return nil
		}
		m.focus = paneTimeline
	case m.focus > paneTimeline:
		m.focus--
	}
	return nil
}

// toggleDir opens or closes the directory under the path cursor.
func (m *Model) toggleDir() {
	rows := m.pathRows()
	if m.pcur >= len(rows) || !rows[m.pcur].dir {
		return
	}
	p := rows[m.pcur].path
	m.toggled[p] = !m.toggled[p]
	m.pathsChanged()
}

// editKey types into the filter.
func (m *Model) editKey(k tea.KeyPressMsg) tea.Cmd {
	f := &m.filter
	if m.focus == paneTimeline {
		f = &m.tfilter
	}
	switch k.String() {
	case "enter":
		m.editing = false
		return nil
	case "esc", "ctrl+c":
		m.editing = false
		*f = ""
	case "backspace":
		if r := []rune(*f); len(r) > 0 {
			*f = string(r[:len(r)-1])
		}
	default:
		if k.Text == "" {
			return nil
		}
		*f += k.Text
	}
	if m.focus == paneTimeline {
		m.rebuildRows()
		m.clamp()
		return m.selectCmd()
	}
	m.pcur = 0
	m.pathsChanged()
	return nil
}

// wheel scrolls the pane under the mouse.
func (m *Model) wheel(w tea.MouseWheelMsg) tea.Cmd {
	d := 0
	switch w.Button {
	case tea.MouseWheelUp:
		d = -3
	case tea.MouseWheelDown:
		d = 3
	default:
		return nil
	}
	if m.modal != nil {
		m.modal.scroll(d)
		return nil
	}
	g := m.geometry()
	mo := w.Mouse()
	switch {
	case mo.X < g.left:
		m.top = clampInt(m.top+d, 0, max(len(m.rows)-g.body, 0))
		m.cur = clampInt(m.cur, m.top, m.top+g.body-1)
		return m.selectCmd()
	case mo.Y < g.diffTop-1:
		m.ptop = clampInt(m.ptop+d, 0, max(len(m.pathRows())-g.pathRows, 0))
		m.pcur = clampInt(m.pcur, m.ptop, m.ptop+g.pathRows-1)
		m.pathsChanged()
	default:
		m.dtop += d
		m.clamp()
	}
	return nil
}

// click selects the row clicked and focuses its pane.
func (m *Model) click(c tea.MouseClickMsg) tea.Cmd {
	if m.modal != nil || c.Button != tea.MouseLeft {
		return nil
	}
	g := m.geometry()
	mo := c.Mouse()
	switch {
	case mo.Y < 1 || mo.Y > g.body:
	case mo.X < g.left:
		m.focus = paneTimeline
		if i := m.top + mo.Y - 1; i < len(m.rows) {
			m.cur = i
			return m.selectCmd()
		}
	case mo.Y >= g.pathTop && mo.Y < g.pathTop+g.pathRows:
		m.focus = panePaths
		if i := m.ptop + mo.Y - g.pathTop; i < len(m.pathRows()) {
			m.pcur = i
			m.pathsChanged()
		}
	case mo.Y >= g.diffTop:
		m.focus = paneDiff
	}
	return nil
}

// clamp keeps every cursor and scroll position on screen and in range.
func (m *Model) clamp() {
	g := m.geometry()
	m.cur = clampInt(m.cur, 0, len(m.rows)-1)
	m.top = scrollTo(m.top, m.cur, g.body, len(m.rows))
	n := len(m.pathRows())
	m.pcur = clampInt(m.pcur, 0, n-1)
	m.ptop = scrollTo(m.ptop, m.pcur, g.pathRows, n)
	if m.diff != nil {
		m.dtop = clampInt(m.dtop, 0, max(m.diff.rows(g.sideBySide)-g.diffRows, 0))
		m.dleft = clampInt(m.dleft, 0, max(m.diff.width-8, 0))
	} else {
		m.dtop, m.dleft = 0, 0
	}
}

// scrollTo returns the first row shown so that cur is on a screen of
// rows rows of a list of n.
func scrollTo(top, cur, rows, n int) int {
	if rows <= 0 {
		return 0
	}
	if cur < top {
		top = cur
	}
	if cur >= top+rows {
		top = cur - rows + 1
	}
	return clampInt(top, 0, max(n-rows, 0))
}

func clampInt(v, lo, hi int) int {
	if v > hi {
		v = hi
	}
	if v < lo {
		v = lo
	}
	return v
}
