package termout

import (
	"fmt"
	"io"
	"time"

	"github.com/turnback/turnback"
)

// TurnShowJSON is the --json document of show @N: the turn as log
// --json gives it (with its session) and what it changed.
type TurnShowJSON struct {
	TurnJSON
	Changes []TurnChangeJSON `json:"changes"`
	// SkippedNow: the paths the after-state's capture skipped, not
	// deleted (TurnChanges.SkippedNow); absent when none.
	SkippedNow []turnback.Ignored `json:"skipped_now,omitempty"`
}

// TurnChangeJSON is one path a turn changed: the entry before (old) and
// after (new) it, null on the side where the path is absent.
type TurnChangeJSON struct {
	Path      string    `json:"path"`
	PathBytes string    `json:"path_bytes,omitempty"`
	Change    string    `json:"change"`
	Old       *SideJSON `json:"old"`
	New       *SideJSON `json:"new"`
}

// SideJSON is a path's entry on one side of a change.
type SideJSON struct {
	Kind       string `json:"kind"`
	Mode       string `json:"mode"`
	Size       int64  `json:"size"`
	Uncaptured bool   `json:"uncaptured,omitempty"`
}

func sideDoc(e *turnback.Entry) *SideJSON {
	if e == nil {
		return nil
	}
	return &SideJSON{Kind: e.Kind.String(), Mode: fmt.Sprintf("%04o", e.Mode), Size: e.Size, Uncaptured: e.Uncaptured}
}

// TurnShowDoc is the --json document of show @N (session: the turn's).
func TurnShowDoc(tc *turnback.TurnChanges, session string) TurnShowJSON {
	d := TurnShowJSON{TurnJSON: TurnDoc(tc.Turn, tc.Undone), Changes: []TurnChangeJSON{}, SkippedNow: tc.SkippedNow}
	d.Session = session
	for _, f := range tc.Files {
		d.Changes = append(d.Changes, TurnChangeJSON{Path: f.Path, PathBytes: JSONBytes(f.Path), Change: f.What, Old: sideDoc(f.Old), New: sideDoc(f.New)})
	}
	return d
}

// ShowTurn writes what show @N prints for people, times in loc: the
// turn (session, message, times, both snapshot ids, counts), then a
// line per path it changed: mark, size before and after ("-": absent
// or a directory), path, and what changed of its type or permission
// bits (or "(owner)"), and "(not captured)" when it is not; then a
// line per path the after-state skipped.
func ShowTurn(w io.Writer, tc *turnback.TurnChanges, session string, loc *time.Location) {
	t := tc.Turn
	undone := ""
	if tc.Undone {
		undone = " (undone)"
	}
	fmt.Fprintf(w, "turn %d of session %s%s\n", t.N, QuotePath(session), undone)
	if t.Message != "" {
		fmt.Fprintf(w, "message  %s\n", SafeText(t.Message))
	}
	fmt.Fprintf(w, "started  %s\nended    %s (%s)\n", stamp(t.Started, loc), stamp(t.Ended, loc), t.ClosedBy)
	fmt.Fprintf(w, "before   %s\nafter    %s\n", t.Before.Short(), t.After.Short())
	fmt.Fprintf(w, "changes  +%d ~%d -%d\n", t.Added, t.Modified, t.Deleted)
	if len(tc.Files)+len(tc.SkippedNow) > 0 {
		fmt.Fprintln(w)
	}
	for _, f := range tc.Files {
		extra := ""
		switch {
		case f.Kind == turnback.TypeChanged:
			extra = fmt.Sprintf(" (%s -> %s)", f.Old.Kind, f.New.Kind)
		case f.Old != nil && f.New != nil && f.Old.Mode != f.New.Mode:
			extra = fmt.Sprintf(" (%04o -> %04o)", f.Old.Mode, f.New.Mode)
		case f.Kind == turnback.ModeChanged:
			extra = " (owner)"
		}
		if f.New != nil && f.New.Uncaptured {
			extra += " (not captured)"
		}
		fmt.Fprintf(w, "%s %10s %10s  %s%s\n", ChangeMarks[f.Kind], sizeOf(f.Old), sizeOf(f.New), QuotePath(f.Path+DirSlash(f.New, f.Old)), extra)
	}
	for _, ig := range tc.SkippedNow {
		fmt.Fprintln(w, SkippedNowLine("skipped after the turn", ig))
	}
}

// TurnDiff is the diff of a turn: from its before-state to its
// after-state.
func TurnDiff(tc *turnback.TurnChanges) *turnback.DiffResult {
	return &turnback.DiffResult{From: tc.Turn.Before, To: tc.Turn.After, Files: tc.Files, SkippedNow: tc.SkippedNow}
}

// sizeOf is a side's size as show @N prints it.
func sizeOf(e *turnback.Entry) string {
	if e == nil || e.Kind == turnback.KindDir {
		return "-"
	}
	return fmt.Sprint(e.Size)
}

// TurnDiffDoc is the --json document of diff @N: diff's, from the
// turn's before-state to its after-state, with the turn's session and
// number.
func TurnDiffDoc(tc *turnback.TurnChanges, session string) map[string]any {
	doc := DiffDoc(TurnDiff(tc))
	doc["session"], doc["turn"] = session, tc.Turn.N
	return doc
}
