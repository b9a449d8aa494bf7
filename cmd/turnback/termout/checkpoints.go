package termout

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/turnback/turnback"
)

// checkpointNames is how many paths a checkpoint's line names.
const checkpointNames = 3

// CheckpointJSON is one checkpoint in "checkpoints --json".
type CheckpointJSON struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Session string    `json:"session"`
	Turn    int       `json:"turn"`
	Command string    `json:"command"`
	Paths   []string  `json:"paths"`
	More    int       `json:"more"`
	Restore string    `json:"restore"`
	// Partial: restore puts back only the paths it holds.
	Partial *turnback.PartialCount `json:"partial,omitempty"`
}

// CheckpointsDoc is the --json document of "checkpoints".
func CheckpointsDoc(list []turnback.Checkpoint) map[string]any {
	docs := []CheckpointJSON{}
	for _, c := range list {
		docs = append(docs, CheckpointJSON{ID: c.ID, Time: c.Time, Session: c.Session, Turn: c.Turn, Command: c.Command,
			Paths: NonNil(c.Paths), More: c.More, Restore: "turnback restore " + c.ID, Partial: c.Partial})
	}
	return map[string]any{"checkpoints": docs}
}

// Checkpoints writes what "checkpoints" prints for people, times in
// loc: a line per checkpoint, newest first (its id, when, the command
// that made it and in which session, the paths it changed, a mark if
// it is partial), then how to bring one back. sessions gives the short
// names.
func Checkpoints(w io.Writer, list []turnback.Checkpoint, sessions []turnback.SessionInfo, loc *time.Location) {
	CheckpointsColor(w, list, sessions, loc, false)
}

// CheckpointsColor is Checkpoints with, when color is true, the
// sessions' names in SessionColor.
func CheckpointsColor(w io.Writer, list []turnback.Checkpoint, sessions []turnback.SessionInfo, loc *time.Location, color bool) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no checkpoints: undo, redo and restore make one of the state they replace")
		return
	}
	rows := [][]string{{"CHECKPOINT", "TIME", "SESSION", "MADE BY", "PATHS"}}
	partial := false
	for _, c := range list {
		partial = partial || c.Partial != nil
		made := SafeText(c.Command)
		if made == "" {
			made = "-"
		}
		rows = append(rows, []string{c.ID[:12], stamp(c.Time, loc), QuotePath(SessionOf(sessions, c.Session).Short), made, checkpointPaths(c) + PartialNote(c.Partial)})
	}
	tableColor(w, rows, colorsIf(color, map[int]string{2: SessionColor}))
	fmt.Fprintf(w, "turnback restore %s brings the folder back to a checkpoint (itself making one of the state it replaces)\n", list[0].ID[:12])
	if partial {
		fmt.Fprintln(w, "a partial checkpoint holds only the paths its undo or redo could write: restore of it puts back those alone")
	}
}

// PartialNote marks the line of a partial checkpoint with the number
// of paths it holds; "" for a whole one.
func PartialNote(p *turnback.PartialCount) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("  [partial: %d path%s]", p.Paths, Plural(p.Paths))
}

// checkpointPaths is a checkpoint's paths in a line: the count, the
// first few names.
func checkpointPaths(c turnback.Checkpoint) string {
	n := len(c.Paths) + c.More
	if n == 0 {
		return "-"
	}
	names := make([]string, 0, checkpointNames)
	for _, p := range c.Paths[:min(len(c.Paths), checkpointNames)] {
		names = append(names, DisplayPath(p))
	}
	s := fmt.Sprintf("%d: %s", n, strings.Join(names, ", "))
	if n > len(names) {
		s += ", ..."
	}
	return s
}
