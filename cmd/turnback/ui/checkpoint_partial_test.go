package ui

import (
	"testing"
	"time"

	"github.com/turnback/turnback"
)

// TestCheckpointPartialLine: a partial checkpoint's line has the mark
// "checkpoints" prints, and restoring it says it puts back only its
// paths; a whole one has no mark and says the whole folder.
func TestCheckpointPartialLine(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 4, 0, 0, time.UTC)
	m := &Model{cfg: Config{Now: func() time.Time { return at.Add(5 * time.Minute) }, Loc: time.UTC}}
	id := "63d467ea3489aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	for _, c := range []struct {
		partial    *turnback.PartialCount
		line, what string
	}{
		{nil, "63d467ea3489  2026-11-22 10:04  5 min ago       after turn 3 of default", "restore checkpoint 63d467ea3489 (the whole folder)"},
		{&turnback.PartialCount{Paths: 1}, "63d467ea3489  2026-11-22 10:04  5 min ago       after turn 3 of default  [partial: 1 path]",
			"restore checkpoint 63d467ea3489 (only the 1 path it holds)"},
		{&turnback.PartialCount{Paths: 2}, "63d467ea3489  2026-11-22 10:04  5 min ago       after turn 3 of default  [partial: 2 paths]",
			"restore checkpoint 63d467ea3489 (only the 2 paths it holds)"},
	} {
		cp := turnback.Checkpoint{ID: id, Time: at, Session: "default", Turn: 3, Partial: c.partial}
		if got := m.checkpointLine(cp); got != c.line {
			t.Errorf("partial %+v: line\n%q\nwant\n%q", c.partial, got, c.line)
		}
		if got := restoreWhat(cp); got != c.what {
			t.Errorf("partial %+v: plan %q, want %q", c.partial, got, c.what)
		}
	}
}
