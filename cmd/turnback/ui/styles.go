package ui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// styles are the looks of the UI; with color off (NO_COLOR, TERM=dumb)
// only bold and reverse video remain.
type styles struct {
	color                 bool
	sel, selDim           lipgloss.Style // the cursor's row: focused pane, other pane
	title, dim, bold      lipgloss.Style
	add, del, mod, hunk   lipgloss.Style
	warn, bar, key, frame lipgloss.Style
}

func newStyles(color bool) styles {
	s := styles{color: color}
	s.sel = lipgloss.NewStyle().Reverse(true)
	s.selDim = lipgloss.NewStyle().Underline(true)
	s.bold = lipgloss.NewStyle().Bold(true)
	s.title = lipgloss.NewStyle().Bold(true)
	s.key = lipgloss.NewStyle().Bold(true)
	s.bar = lipgloss.NewStyle().Reverse(true)
	if !color {
		return s
	}
	s.sel = lipgloss.NewStyle().Background(lipgloss.Color("4")).Foreground(lipgloss.Color("15"))
	s.selDim = lipgloss.NewStyle().Background(lipgloss.Color("8")).Foreground(lipgloss.Color("15"))
	s.title = s.title.Foreground(lipgloss.Color("6"))
	s.dim = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
	s.add = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	s.del = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	s.mod = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	s.hunk = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
	s.warn = lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true)
	s.key = s.key.Foreground(lipgloss.Color("3"))
	s.frame = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
	return s
}

// fit cuts or pads s (which may hold styles) to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if n := ansi.StringWidth(s); n > w {
		s = ansi.Truncate(s, w, "…")
	}
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// paint renders s with st: the style applied to the text as it is
// (fit it first, so that padding is styled too).
func paint(st lipgloss.Style, s string) string {
	if s == "" {
		return s
	}
	return st.Render(s)
}

// width is the cells s takes.
func width(s string) int { return ansi.StringWidth(s) }

type styleT = lipgloss.Style
