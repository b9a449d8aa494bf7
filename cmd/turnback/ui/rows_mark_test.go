package ui

import (
	"testing"
	"time"

	"github.com/turnback/turnback"
)

// TestRowMarks: each state of a turn has its mark, in the order of
// precedence the help lists.
func TestRowMarks(t *testing.T) {
	ended := time.Unix(1, 0)
	for _, c := range []struct {
		r    row
		want string
	}{
		{row{turn: &turnback.Turn{}}, "o"},
		{row{turn: &turnback.Turn{ClosedBy: "end", Ended: ended}}, " "},
		{row{turn: &turnback.Turn{ClosedBy: "end"}, lost: []string{"big"}}, "!"},
		{row{turn: &turnback.Turn{ClosedBy: "end"}, partial: true}, "p"},
		{row{turn: &turnback.Turn{ClosedBy: "end"}, undone: true}, "u"},
		{row{turn: &turnback.Turn{ClosedBy: "end", Pulled: true}}, "n"},
	} {
		if got := c.r.mark(); got != c.want {
			t.Errorf("mark of %+v: %q, want %q", c.r, got, c.want)
		}
	}
}
