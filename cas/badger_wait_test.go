package cas

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestOpenBadgerStopWaiting: StopWaiting ends a long wait for another
// holder at once with ErrBusy (asked before each pause); OnWait is not
// called for a wait that ends during the first short pauses.
func TestOpenBadgerStopWaiting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	first, err := OpenBadger(ctx, dir, BadgerOptions{Holder: "a starting daemon"})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	for _, answerAt := range []int{1, 3, shortPauses + 2} {
		asked, noted := 0, 0
		_, err := OpenBadger(ctx, dir, BadgerOptions{
			LockWait:    time.Hour,
			OnWait:      func(string) { noted++ },
			StopWaiting: func() bool { asked++; return asked == answerAt },
		})
		if !errors.Is(err, ErrBusy) {
			t.Fatalf("answer at %d: %v, want ErrBusy", answerAt, err)
		}
		if asked != answerAt {
			t.Errorf("answer at %d: asked %d times", answerAt, asked)
		}
		if want := min(1, max(0, answerAt-shortPauses)); noted != want {
			t.Errorf("answer at %d: OnWait called %d times, want %d", answerAt, noted, want)
		}
	}
}
