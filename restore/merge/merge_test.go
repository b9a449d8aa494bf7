package merge

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// numbered returns n lines "line 1\n"... with the given line endings.
func numbered(n int, eol string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d%s", i, eol)
	}
	return b.String()
}

func replaceLine(s string, n int, with string) string {
	ls := strings.SplitAfter(s, "\n")
	ls[n-1] = with
	return strings.Join(ls, "")
}

func TestThree(t *testing.T) {
	base := numbered(50, "\n")
	agent := replaceLine(base, 40, "agent 40\n")                     // the turn's change
	user := replaceLine(agent, 2, "user 2\n")                        // the user's edit since
	before := base                                                   // theirs: the turn's before-state
	crBase := numbered(50, "\r\n")                                   // CRLF throughout
	crAgent := replaceLine(crBase, 40, "agent 40\r\n")               //
	crUser := replaceLine(crAgent, 2, "user 2\r\n")                  //
	noNL := strings.TrimSuffix(base, "\n")                           // no final newline
	noNLAgent := replaceLine(noNL, 40, "agent 40\n")                 //
	noNLUser := strings.TrimSuffix(noNLAgent, "line 50") + "user 50" // user edits the last line
	tests := []struct {
		name               string
		base, ours, theirs string
		markers            bool
		want               string
		conflicts          int
	}{
		{"revert agent keep user", agent, user, before, false, replaceLine(base, 2, "user 2\n"), 0},
		{"crlf kept", crAgent, crUser, crBase, false, replaceLine(crBase, 2, "user 2\r\n"), 0},
		{"no final newline kept", noNLAgent, noNLUser, noNL, false, strings.TrimSuffix(noNL, "line 50") + "user 50", 0},
		{"ours unchanged gives theirs", agent, agent, before, false, before, 0},
		{"theirs unchanged gives ours", agent, user, agent, false, user, 0},
		{"same change both sides", "a\nb\nc\n", "a\nX\nc\n", "a\nX\nc\n", false, "a\nX\nc\n", 0},
		{"overlap fails", "a\nb\nc\n", "a\nU\nc\n", "a\nT\nc\n", false, "", 1},
		{"adjacent lines conflict", "a\nb\nc\nd\n", "a\nU\nc\nd\n", "a\nb\nT\nd\n", false, "", 1},
		{"overlap markers", "a\nb\nc\n", "a\nU\nc\n", "a\nT\nc\n", true, "a\n<<<<<<< now\nU\n=======\nT\n>>>>>>> before\nc\n", 1},
		{"markers crlf", "a\r\nb\r\n", "a\r\nU\r\n", "a\r\nT\r\n", true, "a\r\n<<<<<<< now\r\nU\r\n=======\r\nT\r\n>>>>>>> before\r\n", 1},
		{"markers at end without newline", "a\nb", "a\nU", "a\nT", true, "a\n<<<<<<< now\nU\n=======\nT\n>>>>>>> before\n", 1},
		{"agent created content user kept", "", "user\n", "", false, "user\n", 0},
		{"all empty", "", "", "", false, "", 0},
		{"user deleted the agent's line", "a\nagent\nb\n", "a\nb\n", "a\nb\n", false, "a\nb\n", 0},
		{"user deleted a line the agent changed", "a\nagent\nb\n", "a\nb\n", "a\norig\nb\n", false, "", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Three([]byte(tc.base), []byte(tc.ours), []byte(tc.theirs), Options{Markers: tc.markers, OursLabel: "now", TheirsLabel: "before"})
			if err != nil {
				t.Fatal(err)
			}
			if r.Conflicts != tc.conflicts {
				t.Fatalf("conflicts %d, want %d", r.Conflicts, tc.conflicts)
			}
			if tc.conflicts > 0 && !tc.markers {
				if r.Text != nil {
					t.Fatalf("text %q with a conflict and no markers", r.Text)
				}
				return
			}
			if string(r.Text) != tc.want {
				t.Fatalf("got\n%q\nwant\n%q", r.Text, tc.want)
			}
		})
	}
}

func TestThreeRefuses(t *testing.T) {
	big := bytes.Repeat([]byte("x\n"), MaxSize/2+1)
	for _, tc := range []struct {
		name               string
		base, ours, theirs []byte
		want               error
	}{
		{"nul in base", []byte("a\x00"), []byte("a"), []byte("a"), ErrBinary},
		{"nul in ours", []byte("a"), []byte("a\x00"), []byte("a"), ErrBinary},
		{"nul in theirs", []byte("a"), []byte("a"), []byte("\x00"), ErrBinary},
		{"large ours", []byte("a"), big, []byte("a"), ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Three(tc.base, tc.ours, tc.theirs, Options{Markers: true}); !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
		})
	}
}
