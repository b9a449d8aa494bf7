package termout

import (
	"strings"
	"testing"

	turnback "github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/model"
)

// The conflict header says what the paths are in the way of: edits
// after the turns, another session's turn, or both.
func TestConflictsHeader(t *testing.T) {
	edited := turnback.PathNote{Path: "a.txt", Reason: "edited after the turn"}
	other := turnback.PathNote{Path: "y.txt", Reason: model.OverlapReason(1, "bbbbbbbb")}
	for _, c := range []struct {
		own   string
		notes []turnback.PathNote
		want  string
	}{
		{"undo", []turnback.PathNote{edited}, "turnback: conflict: undo changed nothing: 1 path was edited after the turns:\n"},
		{"undo", []turnback.PathNote{other}, "turnback: conflict: undo changed nothing: 1 path was also changed by another session's turn that ran at the same time:\n"},
		{"undo", []turnback.PathNote{edited, other}, "turnback: conflict: undo changed nothing: 2 paths were edited after the turns, or by another session's turn that ran at the same time:\n"},
		{"redo", []turnback.PathNote{edited}, "turnback: conflict: redo changed nothing: 1 path was edited since the undo:\n"},
	} {
		var b strings.Builder
		Conflicts(&b, c.own, "turnback", "", &turnback.RestoreResult{Conflicts: c.notes})
		if got, _, _ := strings.Cut(b.String(), "  "); got != c.want {
			t.Errorf("%s %v:\n%q\nwant\n%q", c.own, c.notes, got, c.want)
		}
		// A merge meets another session's turns as they are: it is
		// offered only when an edit after the turns is in the way.
		if offered, want := strings.Contains(b.String(), "--merge"), c.own == "undo" && c.notes[0] == edited; offered != want {
			t.Errorf("%s %v: --merge offered %v, want %v:\n%s", c.own, c.notes, offered, want, b.String())
		}
	}
}
