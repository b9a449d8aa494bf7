package termout

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/lazyre"
)

// showCounts is the counts line of ShowTurn.
var showCounts = lazyre.New(`^changes  \+(\d+) ~(\d+) -(\d+)$`)

// ShowTurnColor is ShowTurn with, when color is true, the counts and
// each file's mark in the colours status and log give them.
func ShowTurnColor(w io.Writer, tc *turnback.TurnChanges, session string, loc *time.Location, color bool) {
	if !color {
		ShowTurn(w, tc, session, loc)
		return
	}
	var b bytes.Buffer
	ShowTurn(&b, tc, session, loc)
	files := false // past the blank line: one file a line, mark first
	for i, line := range strings.SplitAfter(b.String(), "\n") {
		body := strings.TrimSuffix(line, "\n")
		nl := line[len(body):]
		switch m := showCounts().FindStringSubmatch(body); {
		case i == 0:
			undone := ""
			if tc.Undone {
				undone = " (undone)"
			}
			body = fmt.Sprintf("turn %s of session %s%s", turnNum(true, tc.Turn.N, 0), Paint(true, SessionColor, QuotePath(session)), undone)
		case body == "" && nl != "":
			files = true
		case m != nil && !files:
			body = fmt.Sprintf("changes  %s %s %s", Paint(true, MarkColor("A"), "+"+m[1]), Paint(true, MarkColor("M"), "~"+m[2]), Paint(true, MarkColor("D"), "-"+m[3]))
		case files && len(body) > 2 && body[1] == ' ':
			body = Mark(true, body[:1]) + body[1:]
		}
		fmt.Fprint(w, body+nl)
	}
}
