package model

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

// TestForget: the newest Keep turns stay, older ones go, and so do
// turns started more than OlderThan ago, except the last turn while it
// is open; negative values keep all.
func TestForget(t *testing.T) {
	now := time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	turns := map[int]*Turn{
		1: {N: 1, Started: now.Add(-9 * day), ClosedBy: "end"},
		2: {N: 2, Started: now.Add(-5 * day), ClosedBy: "end"},
		3: {N: 3, Started: now.Add(-2 * day), ClosedBy: "snap"},
		4: {N: 4, Started: now.Add(-8 * day)}, // open, and old
	}
	for _, c := range []struct {
		name      string
		o         GCOptions
		closed    bool // turn 4 closed
		kept      []int
		forgotten int
	}{
		{"keep all", GCOptions{Keep: -1, OlderThan: -1}, false, []int{1, 2, 3, 4}, 0},
		{"keep 2", GCOptions{Keep: 2, OlderThan: -1}, false, []int{3, 4}, 2},
		{"keep 0, last open", GCOptions{Keep: 0, OlderThan: -1}, false, []int{4}, 3},
		{"keep 0, last closed", GCOptions{Keep: 0, OlderThan: -1}, true, nil, 4},
		{"older than 3 days", GCOptions{Keep: -1, OlderThan: 3 * day}, false, []int{3, 4}, 2},
		{"older than 6 days", GCOptions{Keep: -1, OlderThan: 6 * day}, true, []int{2, 3, 4}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			turns[4].ClosedBy = ""
			if c.closed {
				turns[4].ClosedBy = "end"
			}
			sess := &SessionRecord{Name: "s", Turns: []int{1, 2, 3, 4}, Redo: []UndoGroup{{Turns: []int{5}}}}
			dead, err := Forget(sess, c.o, now, func(n int) (*Turn, error) { return turns[n], nil })
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(sess.Turns, c.kept) || sess.Forgotten != c.forgotten {
				t.Errorf("turns %v, forgotten %d; want %v, %d", sess.Turns, sess.Forgotten, c.kept, c.forgotten)
			}
			if len(dead) != 4-len(c.kept) {
				t.Errorf("dead keys %q", dead)
			}
			for _, k := range dead {
				if string(k) == string(TurnKey("s", 5)) {
					t.Error("a redo turn was forgotten")
				}
			}
		})
	}
	fail := errors.New("unreadable")
	sess := &SessionRecord{Name: "s", Turns: []int{1, 2}}
	if _, err := Forget(sess, GCOptions{Keep: -1, OlderThan: day}, now, func(int) (*Turn, error) { return nil, fail }); !errors.Is(err, fail) {
		t.Errorf("a turn that cannot be read: %v", err)
	}
}
