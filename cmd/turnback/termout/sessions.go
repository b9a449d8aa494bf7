package termout

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/turnback/turnback"
)

// SessionJSON is one session in --json documents (sessions, and the
// candidates of an ambiguous session): name_bytes carries a name that is
// not valid UTF-8 exactly (see JSONBytes); last_turn is "" for a session
// without turns.
type SessionJSON struct {
	Name        string `json:"name"`
	NameBytes   string `json:"name_bytes,omitempty"`
	Short       string `json:"short"`
	Agent       string `json:"agent"`
	Turns       int    `json:"turns"`
	Redo        int    `json:"redo"`
	Open        bool   `json:"open"`
	LastTurn    string `json:"last_turn"`
	LastMessage string `json:"last_message"`
}

// SessionDocs are the JSON forms of list (always an array).
func SessionDocs(list []turnback.SessionInfo) []SessionJSON {
	out := []SessionJSON{}
	for _, s := range list {
		d := SessionJSON{Name: s.Name, NameBytes: JSONBytes(s.Name), Short: s.Short, Agent: s.Agent, Turns: s.Turns,
			Redo: s.Redo, Open: s.Open, LastMessage: s.LastMessage}
		if !s.LastTurn.IsZero() {
			d.LastTurn = s.LastTurn.UTC().Format(time.RFC3339)
		}
		out = append(out, d)
	}
	return out
}

// SessionsDoc is the --json document of sessions.
func SessionsDoc(list []turnback.SessionInfo) map[string]any {
	return map[string]any{"sessions": SessionDocs(list)}
}

// Sessions writes what sessions prints for people: a table, times in
// loc, "-" for what a session lacks.
func Sessions(w io.Writer, list []turnback.SessionInfo, loc *time.Location) {
	SessionsColor(w, list, loc, false)
}

// SessionsColor is Sessions with, when color is true, the names in
// SessionColor.
func SessionsColor(w io.Writer, list []turnback.SessionInfo, loc *time.Location, color bool) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no sessions")
		return
	}
	rows := [][]string{{"SESSION", "AGENT", "TURNS", "REDO", "LAST TURN", "MESSAGE"}}
	for _, s := range list {
		rows = append(rows, []string{QuotePath(s.Short), orDash(SafeText(s.Agent)), fmt.Sprint(s.Turns),
			orDash(countOrEmpty(s.Redo)), orDash(stamp(s.LastTurn, loc)), SafeText(s.LastMessage)})
	}
	tableColor(w, rows, colorsIf(color, map[int]string{0: SessionColor}), 2, 3)
}

// table writes rows in columns two spaces apart, the columns right
// (numbers) right-aligned, the last one unpadded.
func table(w io.Writer, rows [][]string, right ...int) {
	tableColor(w, rows, nil, right...)
}

// tableColor is table with each cell below the header of column i in
// colors[i] (none: no colour), padded as the plain text.
func tableColor(w io.Writer, rows [][]string, colors map[int]string, right ...int) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for n, r := range rows {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if n > 0 && colors[i] != "" && c != "-" {
				c = Paint(true, colors[i], c)
			}
			switch {
			case i == len(r)-1:
				b.WriteString(c)
			case slices.Contains(right, i):
				b.WriteString(pad + c + "  ")
			default:
				b.WriteString(c + pad + "  ")
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func countOrEmpty(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprint(n)
}

// stamp is t as tables show times, in loc; "" for the zero time.
func stamp(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format("2006-01-02 15:04:05")
}

// Ago says how long before now t was, as "2 min ago": "just now" under
// a minute (or in the future), then minutes, hours under two days, then
// days.
func Ago(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%d days ago", int(d/(24*time.Hour)))
}

// about is what the CLI says of a session in a line: "claude, last
// turn 2 min ago" (no agent: "last turn 2 min ago").
func about(s turnback.SessionInfo, now time.Time) string {
	last := "last turn " + Ago(s.LastTurn, now)
	if s.Agent == "" {
		return last
	}
	return SafeText(s.Agent) + ", " + last
}

// UsingSession is the note a command that was given no session prints
// on stderr when it works on another session than "default":
// "using session 4f1c2a7e (claude, last turn 2 min ago)".
func UsingSession(s turnback.SessionInfo, now time.Time) string {
	return "using session " + AboutSession(s, now)
}

// AboutSession names a session in a line: "4f1c2a7e (claude, last turn
// 2 min ago)".
func AboutSession(s turnback.SessionInfo, now time.Time) string {
	return fmt.Sprintf("%s (%s)", QuotePath(s.Short), about(s, now))
}

// AmbiguousSession is the message of an ambiguous session (exit 2): the
// candidates by their full names, each with its agent and last turn, and
// how to choose.
func AmbiguousSession(e *turnback.AmbiguousSessionError, now time.Time) string {
	list := make([]string, len(e.Sessions))
	for i, s := range e.Sessions {
		list[i] = fmt.Sprintf("%s (%s)", QuotePath(s.Name), about(s, now))
	}
	if e.Name == "" {
		verb := "has"
		if len(list) > 2 {
			verb = "have"
		}
		return fmt.Sprintf("turnback: %s has the folder's newest turn, but %s %s a turn open right now (an agent may be working); name one with --session (a unique prefix is enough)",
			list[0], strings.Join(list[1:], ", "), verb)
	}
	return fmt.Sprintf("turnback: session %s is ambiguous: %d sessions start with it: %s; give more of the name",
		QuotePath(e.Name), len(list), strings.Join(list, ", "))
}

// SessionOf returns the session of list named name, or one without
// turns of that name.
func SessionOf(list []turnback.SessionInfo, name string) turnback.SessionInfo {
	for _, s := range list {
		if s.Name == name {
			return s
		}
	}
	return turnback.SessionInfo{Name: name, Short: name}
}

// allRow is one turn of log --all.
type allRow struct {
	s      *turnback.SessionTurns
	t      *turnback.Turn
	undone bool
}

// allRows interleaves every session's turns, newest first by start
// time, then by session name and turn number (newest first).
func allRows(all []turnback.SessionTurns) []allRow {
	var rows []allRow
	for i := range all {
		s := &all[i]
		for _, t := range s.Redo {
			rows = append(rows, allRow{s, t, true})
		}
		for _, t := range s.Turns {
			rows = append(rows, allRow{s, t, false})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		switch {
		case !a.t.Started.Equal(b.t.Started):
			return a.t.Started.After(b.t.Started)
		case a.s.Name != b.s.Name:
			return a.s.Name < b.s.Name
		}
		return a.t.N > b.t.N
	})
	return rows
}

// LogAllDoc is the --json document of log --all: every session's turns
// interleaved (see LogAll), each with its "session", and the sessions.
// lost holds each session's unprotected changes by turn.
func LogAllDoc(all []turnback.SessionTurns, lost map[string]map[int][]string) map[string]any {
	docs := []TurnJSON{}
	var list []turnback.SessionInfo
	for _, s := range all {
		list = append(list, s.SessionInfo)
	}
	for _, r := range allRows(all) {
		d := TurnDoc(r.t, r.undone)
		d.Session, d.Unprotected = r.s.Name, lost[r.s.Name][r.t.N]
		docs = append(docs, d)
	}
	return map[string]any{"sessions": SessionDocs(list), "turns": docs}
}

// LogAll writes what log --all prints for people: log's lines of every
// session, newest first by start time, after a session column (short
// names); times in loc.
func LogAll(w io.Writer, all []turnback.SessionTurns, lost map[string]map[int][]string, loc *time.Location) {
	LogAllColor(w, all, lost, loc, false)
}

// LogAllColor is LogAll with the counts coloured as log colours them,
// when color is true.
func LogAllColor(w io.Writer, all []turnback.SessionTurns, lost map[string]map[int][]string, loc *time.Location, color bool) {
	rows := allRows(all)
	if len(rows) == 0 {
		fmt.Fprintln(w, "no turns in any session")
		return
	}
	width := len("SESSION")
	for _, r := range rows {
		width = max(width, utf8.RuneCountInString(QuotePath(r.s.Short)))
	}
	pad := func(s string) string { return s + strings.Repeat(" ", width-utf8.RuneCountInString(s)) }
	name := func(s string) string {
		return Paint(color, SessionColor, s) + strings.Repeat(" ", width-utf8.RuneCountInString(s))
	}
	fmt.Fprintln(w, pad("SESSION")+"  "+fmt.Sprintf("%4s  %-12s  %-12s  %-19s  %-16s %s", "TURN", "BEFORE", "AFTER", "STARTED", "CHANGES", "MESSAGE"))
	for _, r := range rows {
		fmt.Fprintln(w, name(QuotePath(r.s.Short))+"  "+logLine(r.t, r.undone, lost[r.s.Name][r.t.N], loc, color))
	}
}
