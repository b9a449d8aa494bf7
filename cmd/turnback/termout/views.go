package termout

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/turnback/turnback"
)

// StatusDoc is the --json document of status.
func StatusDoc(st *turnback.StatusResult, session string) map[string]any {
	doc := map[string]any{"base": IDOrEmpty(st.Base.IsZero(), st.Base.String()), "current": st.Current.String(),
		"session": session, "changes": ChangeDocs(st.Changes), "stats": StatsDoc(st.Stats, st.Watch)}
	if st.Ignored != nil {
		doc["ignored"] = st.Ignored
	}
	if len(st.SkippedNow) > 0 {
		doc["skipped_now"] = st.SkippedNow
	}
	return doc
}

// Status writes what status prints for people: a mark and a path per
// change, coloured with color.
func Status(w io.Writer, st *turnback.StatusResult, session string, color bool) {
	if st.Base.IsZero() {
		fmt.Fprintf(w, "session %s has no snapshot yet: everything is new\n", session)
	}
	for _, c := range st.Changes {
		mark := ChangeMarks[c.Kind]
		fmt.Fprintf(w, "%s %s\n", Paint(color, MarkColor(mark), mark), QuotePath(c.Path+DirSlash(c.New, c.Old)))
	}
	for _, ig := range st.SkippedNow {
		fmt.Fprintln(w, SkippedNowLine("skipped now", ig))
	}
	if len(st.Changes)+len(st.SkippedNow) == 0 && !st.Base.IsZero() {
		fmt.Fprintln(w, "no changes since", st.Base.Short())
	}
	if st.Ignored == nil {
		return
	}
	if len(st.Ignored) == 0 {
		fmt.Fprintln(w, "nothing is skipped")
		return
	}
	fmt.Fprintf(w, "skipped (never captured, never touched by undo): %d path%s\n", len(st.Ignored), Plural(len(st.Ignored)))
	for _, ig := range st.Ignored {
		fmt.Fprintf(w, "%s %s  %s\n", Paint(color, MarkColor("I"), "I"), QuotePath(ig.Path+dirSlash(ig.Dir)), IgnoredWhy(ig))
	}
}

// SkippedNowLine says that a path of the older state is skipped in the
// newer one, and why: "skipped now: src/ (generated: holds
// src/CACHEDIR.TAG)" with words "skipped now".
func SkippedNowLine(words string, ig turnback.Ignored) string {
	return fmt.Sprintf("%s: %s (%s)", words, QuotePath(ig.Path+dirSlash(ig.Dir)), IgnoredWhy(ig))
}

// dirSlash is "/" for a directory.
func dirSlash(dir bool) string {
	if dir {
		return "/"
	}
	return ""
}

// IgnoredWhy says in a few words why a path is skipped: the rule, and
// the ignore file's line or the marker found.
func IgnoredWhy(ig turnback.Ignored) string {
	if ig.Rule == "evidence" && ig.Evidence != "" {
		return "generated: holds " + QuotePath(ig.Evidence)
	}
	return SafeText(ig.Reason)
}

// LogDoc is the --json document of log: the session (its name and
// agent), the undone turns (redo), then the turns, newest first, with
// what each changed that undo cannot bring back (lost).
func LogDoc(s turnback.SessionInfo, turns, redo []*turnback.Turn, lost map[int][]string) map[string]any {
	docs := []TurnJSON{}
	for _, t := range redo {
		docs = append(docs, TurnDoc(t, true))
		docs[len(docs)-1].Unprotected = lost[t.N]
	}
	for _, t := range turns {
		docs = append(docs, TurnDoc(t, false))
		docs[len(docs)-1].Unprotected = lost[t.N]
	}
	return map[string]any{"session": s.Name, "agent": s.Agent, "turns": docs}
}

// Log writes what log prints for people, times in loc: a header naming
// the session (and its agent), then a line per turn.
func Log(w io.Writer, s turnback.SessionInfo, turns, redo []*turnback.Turn, lost map[int][]string, loc *time.Location) {
	LogColor(w, s, turns, redo, lost, loc, false)
}

// LogColor is Log with each turn's counts in the colours of the marks
// (+ as A, ~ as M, - as D) when color is true.
func LogColor(w io.Writer, s turnback.SessionInfo, turns, redo []*turnback.Turn, lost map[int][]string, loc *time.Location, color bool) {
	if len(turns)+len(redo) == 0 {
		fmt.Fprintf(w, "no turns in session %s\n", QuotePath(s.Name))
		return
	}
	header := "session " + Paint(color, SessionColor, QuotePath(s.Name))
	if s.Agent != "" {
		header += " (" + SafeText(s.Agent) + ")"
	}
	fmt.Fprintln(w, header)
	for _, t := range redo {
		fmt.Fprintln(w, logLine(t, true, lost[t.N], loc, color))
	}
	for _, t := range turns {
		fmt.Fprintln(w, logLine(t, false, lost[t.N], loc, color))
	}
}

// logLine is one turn as log shows it: number, the snapshots before and
// after it ("-" while open), start time, counts (or "(open)"; "undone"
// when undone), message, and what undo cannot bring back (lost).
func logLine(t *turnback.Turn, undone bool, lost []string, loc *time.Location, color bool) string {
	after, counts, painted := "-", "(open)", "(open)"
	if !t.Open() {
		after, counts = t.After.Short(), fmt.Sprintf("+%d ~%d -%d", t.Added, t.Modified, t.Deleted)
		painted = fmt.Sprintf("%s %s %s", Paint(color, MarkColor("A"), fmt.Sprintf("+%d", t.Added)),
			Paint(color, MarkColor("M"), fmt.Sprintf("~%d", t.Modified)), Paint(color, MarkColor("D"), fmt.Sprintf("-%d", t.Deleted)))
	}
	if undone {
		counts += " undone"
		painted += " undone"
	}
	// Padded as the plain text, so colour keeps the columns.
	painted += strings.Repeat(" ", max(0, 16-len(counts)))
	l := fmt.Sprintf("%s  %s  %-12s  %s  %s %s", turnNum(color, t.N, 4), t.Before.Short(), after, stamp(t.Started, loc), painted, SafeText(t.Message))
	return strings.TrimRight(l+pulledNote(t.Pulled)+partlyNote(t.PartlyUndone)+UnprotectedNote(lost), " ")
}

// pulledNote marks a log line of a turn a pull brought that the folder
// lacks.
func pulledNote(pulled bool) string {
	if !pulled {
		return ""
	}
	return "  [pulled, not in the folder]"
}

// partlyNote marks a log line of a turn undo --path partly undid.
func partlyNote(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	names := make([]string, 0, 3)
	for _, p := range paths[:min(3, len(paths))] {
		names = append(names, DisplayPath(p))
	}
	if len(paths) > 3 {
		names = append(names, fmt.Sprintf("+%d more", len(paths)-3))
	}
	return "  [partly undone: " + strings.Join(names, ", ") + "]"
}

// DiffDoc is the --json document of diff.
func DiffDoc(d *turnback.DiffResult) map[string]any {
	var docs []map[string]any
	for _, f := range d.Files {
		doc := map[string]any{"path": f.Path, "change": f.What}
		if b := JSONBytes(f.Path); b != "" {
			doc["path_bytes"] = b
		}
		if text, binary := Unified(f); binary {
			doc["binary"] = true
		} else if text != "" {
			doc["diff"] = text
		}
		docs = append(docs, doc)
	}
	doc := map[string]any{"from": IDOrEmpty(d.From.IsZero(), d.From.String()), "to": d.To.String(), "files": NonNil(docs)}
	if len(d.SkippedNow) > 0 {
		doc["skipped_now"] = d.SkippedNow
	}
	return doc
}

// Diff writes every difference as a unified diff, coloured with color,
// then a line per path the newer state skips, as status words it.
func Diff(w io.Writer, d *turnback.DiffResult, color bool) {
	for _, f := range d.Files {
		text, _ := Unified(f)
		if color {
			text = ColorDiff(text)
		}
		fmt.Fprint(w, text)
	}
	for _, ig := range d.SkippedNow {
		fmt.Fprintln(w, SkippedNowLine("skipped now", ig))
	}
}

// GC writes what gc prints for people, times in loc.
func GC(w io.Writer, res *turnback.GCResult, loc *time.Location) {
	verb := "removed"
	if res.DryRun {
		verb = "would remove"
	}
	fmt.Fprintf(w, "%s %d turn%s, %d snapshot%s, %d blob%s, %d chunk list%s\n", verb,
		res.TurnsForgotten, Plural(res.TurnsForgotten), res.SnapshotsForgotten, Plural(res.SnapshotsForgotten),
		res.BlobsRemoved, Plural(int(res.BlobsRemoved)), res.ChunkListsRemoved, Plural(int(res.ChunkListsRemoved)))
	for _, c := range res.Checkpoints {
		fmt.Fprintf(w, "%s checkpoint %s (session %s, after turn %d, %s)\n", verb, ShortID(c.ID), QuotePath(c.Session), c.Turn,
			c.Time.In(loc).Format("2006-01-02 15:04:05"))
	}
	fmt.Fprintf(w, "store: %s before, %s after\n", HumanBytes(res.SizeBefore), HumanBytes(res.SizeAfter))
}
