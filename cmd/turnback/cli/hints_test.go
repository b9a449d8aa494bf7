package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback"
)

// TestHint: the CLI's message for each library error the CLI adds a
// hint to is the library's message and the hint, exactly the text the
// library's errors carried before the hints moved here.
func TestHint(t *testing.T) {
	t.Parallel()
	wt, err := filepath.EvalSymlinks(t.TempDir()) // the path CheckLocation names
	if err != nil {
		t.Fatal(err)
	}
	inside := turnback.CheckLocation(wt, filepath.Join(wt, "store"), false)
	for _, c := range []struct {
		err  error
		want string
	}{
		{&turnback.ConflictError{Result: &turnback.RestoreResult{Conflicts: []turnback.PathNote{{Path: "a"}}}},
			"turnback: conflict: 1 path was changed outside the turns; nothing was changed for them (use --force to proceed: the edits stay recoverable)"},
		{fmt.Errorf("undo: %w", &turnback.UnfinishedError{Err: errors.New("rename a: permission denied")}),
			"undo: turnback: an undo, redo or restore stopped part way and is not finished: rename a: permission denied\n" +
				"turnback: fix the cause, then run \"turnback recover\" (any command tries again) to finish it, " +
				"or \"turnback recover --rollback\" to put back the state before it"},
		{turnback.ErrScope, "turnback: refusing a work tree that is / or the home directory (use --force if you mean it)"},
		{inside, fmt.Sprintf("turnback: store %s is inside the work tree %s; put it elsewhere (--store or TURNBACK_STORE)", filepath.Join(wt, "store"), wt)},
		{fmt.Errorf("%w: the store's copy of a (content 0123456789ab), which the way back needs, cannot be used: %w", turnback.ErrUnverified, errors.New("corrupt")),
			"turnback: stopped before changing anything: the store's copy of a (content 0123456789ab), which the way back needs, cannot be used: corrupt (run 'turnback verify'; the file itself is untouched)"},
		{turnback.ErrBusy, turnback.ErrBusy.Error()},
	} {
		if got := c.err.Error() + hint(c.err); got != c.want {
			t.Errorf("message and hint:\n got %q\nwant %q", got, c.want)
		}
	}
}
