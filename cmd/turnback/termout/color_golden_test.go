package termout

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/walker"
)

var updateColorGolden = flag.Bool("update-color-golden", false, "rewrite testdata/color/*.golden")

// ansi matches the colour codes termout writes.
var ansi = regexp.MustCompile("\033\\[[0-9;]*m")

// TestColorGolden: with colour on, each command's rendering colours the
// same thing alike (a mark A, M, D in status, show, the lists of undo,
// redo and restore, log's and show's counts; a conflict; diff's lines;
// a turn's number; a session's name in every table; a warning), as in
// the golden files;
// with colour off it writes the same text without any code.
func TestColorGolden(t *testing.T) {
	file := func(size int64) *turnback.Entry {
		return &turnback.Entry{Kind: turnback.KindFile, Mode: 0o644, Size: size}
	}
	h1, h2 := cas.Sum([]byte("one")), cas.Sum([]byte("two"))
	status := &turnback.StatusResult{Base: h1, Changes: []turnback.Change{
		{Path: "new.go", Kind: turnback.Added, New: file(3)},
		{Path: "main.go", Kind: turnback.Modified, Old: file(3), New: file(4)},
		{Path: "old.go", Kind: turnback.Deleted, Old: file(3)},
	}}
	diffs := []turnback.FileDiff{{Change: turnback.Change{Path: "main.go", Kind: turnback.Modified, Old: file(4), New: file(4)},
		OldData: []byte("one\ntwo\n"), NewData: []byte("one\nTWO\n")}}
	undo := &turnback.RestoreResult{Turns: 1, Restored: []string{"main.go"}, Deleted: []string{"new.go"}, Created: []string{"old.go"}, Checkpoint: h2}
	plan := &turnback.RestoreResult{Turns: 2, DryRun: &turnback.Preview{Turns: 2, Restored: []string{"main.go"}, Deleted: []string{"new.go"}, Created: []string{"old.go"}}}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	turns := []*turnback.Turn{
		{N: 2, Before: h2, Started: t0.Add(time.Minute), Message: "still open"},
		{N: 1, Before: h1, After: h2, Started: t0, Ended: t0, ClosedBy: "end", Added: 1, Modified: 2, Deleted: 3, Message: "add a form"},
	}
	sessions := []turnback.SessionInfo{
		{Name: "s1-long-name", Short: "s1", Agent: "claude", Turns: 2, Redo: 1, LastTurn: t0, LastMessage: "add a form"},
		{Name: "s2", Short: "s2"},
	}
	for _, c := range []struct {
		name   string
		render func(color bool) string
	}{
		{"status", func(color bool) string { var b bytes.Buffer; Status(&b, status, "s1", color); return b.String() }},
		{"diff", func(color bool) string {
			var b bytes.Buffer
			Diff(&b, &turnback.DiffResult{Files: diffs}, color)
			return b.String()
		}},
		{"undo", func(color bool) string {
			var b bytes.Buffer
			RestoreListColor(&b, "undid", undo, false, color)
			return b.String()
		}},
		{"undo-force", func(color bool) string {
			var b bytes.Buffer
			forced := &turnback.RestoreResult{Turns: 1, Restored: []string{"main.go"}, Checkpoint: h2,
				Conflicts:     []turnback.PathNote{{Path: "main.go", Reason: "edited after the turn"}},
				NotRestorable: []turnback.PathNote{{Path: "lib.so", Reason: "permission denied"}}}
			RestoreListColor(&b, "undid", forced, false, color)
			return b.String()
		}},
		{"conflict", func(color bool) string {
			var b bytes.Buffer
			ConflictsColor(&b, "undo", "turnback", "", &turnback.RestoreResult{Turns: 1,
				Conflicts: []turnback.PathNote{{Path: "main.go", Reason: "edited after the turn"}}}, color)
			return b.String()
		}},
		{"redo-plan", func(color bool) string {
			var b bytes.Buffer
			RestoreListColor(&b, "redid", plan, false, color)
			return b.String()
		}},
		{"show", func(color bool) string {
			var b bytes.Buffer
			ShowTurnColor(&b, &turnback.TurnChanges{Turn: turns[1], Files: []turnback.FileDiff{
				{Change: turnback.Change{Path: "new.go", Kind: turnback.Added, New: file(3)}},
				{Change: turnback.Change{Path: "main.go", Kind: turnback.Modified, Old: file(3), New: file(4)}},
				{Change: turnback.Change{Path: "old.go", Kind: turnback.Deleted, Old: file(3)}},
			}}, "s1", time.UTC, color)
			return b.String()
		}},
		{"recover", func(color bool) string {
			var b bytes.Buffer
			RecoverColor(&b, &turnback.RecoverResult{Found: true, RolledBack: true, Restored: []string{"main.go"}, Deleted: []string{"new.go"},
				Created: []string{"old.go"}, Kept: []turnback.PathNote{{Path: "lib.so", Reason: "permission denied"}}}, color)
			return b.String()
		}},
		{"log-all", func(color bool) string {
			var b bytes.Buffer
			LogAllColor(&b, []turnback.SessionTurns{{SessionInfo: turnback.SessionInfo{Name: "s1", Short: "s1"}, Turns: turns}}, nil, time.UTC, color)
			return b.String()
		}},
		{"log", func(color bool) string {
			var b bytes.Buffer
			LogColor(&b, turnback.SessionInfo{Name: "s1", Agent: "claude"}, turns, nil, nil, time.UTC, color)
			return b.String()
		}},
		{"checkpoints", func(color bool) string {
			var b bytes.Buffer
			CheckpointsColor(&b, []turnback.Checkpoint{
				{ID: h2.String(), Time: t0, Session: "s1", Turn: 1, Command: "undo", Paths: []string{"main.go", "new.go"}},
				{ID: h1.String(), Time: t0, Session: "gone"}}, sessions, time.UTC, color)
			return b.String()
		}},
		{"sessions", func(color bool) string {
			var b bytes.Buffer
			SessionsColor(&b, sessions, time.UTC, color)
			return b.String()
		}},
		{"remote-sessions", func(color bool) string {
			var b bytes.Buffer
			RemoteSessionsColor(&b, "s3://b/p", sessions, []int64{2048, 0}, time.UTC, color)
			return b.String()
		}},
		{"show-undone", func(color bool) string {
			var b bytes.Buffer
			ShowTurnColor(&b, &turnback.TurnChanges{Turn: turns[1], Undone: true}, "s 1", time.UTC, color)
			return b.String()
		}},
		{"warnings", func(color bool) string {
			var b bytes.Buffer
			w := WarnColorWriter(&b, func() bool { return color })
			Problems(w, &turnback.SnapResult{Stats: walker.Stats{Problems: []walker.Problem{{Path: "lib.so", Err: "permission denied"}}}})
			fmt.Fprint(w, "turnback: not a warning: turnback: warning: mid-line\n")
			fmt.Fprint(w, "turnback: conflict: a\nturnback: warning: two lines\nturnback: warning: in one write\n")
			fmt.Fprint(w, "\rturnback: 3 files scanned ")
			fmt.Fprint(w, "\r\033[K")
			fmt.Fprint(w, "turnback: warning: after the progress line\n")
			return b.String()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			colored, plain := c.render(true), c.render(false)
			golden := filepath.Join("testdata", "color", c.name+".golden")
			if *updateColorGolden {
				if err := os.WriteFile(golden, []byte(colored), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil || colored != string(want) {
				t.Errorf("colour on (want %s, -update-color-golden rewrites it; %v):\n%q\nwant\n%q", golden, err, colored, want)
			}
			if ansi.FindString(plain) != "" {
				t.Errorf("colour off writes codes: %q", plain)
			}
			if got := ansi.ReplaceAllString(colored, ""); got != plain {
				t.Errorf("colour changes the text:\n%q\nplain\n%q", got, plain)
			}
			if colored == plain {
				t.Errorf("colour on writes no colour: %q", colored)
			}
		})
	}
}
