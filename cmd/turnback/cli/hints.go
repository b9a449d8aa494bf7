package cli

import (
	"errors"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/agent"
)

// hint returns what the CLI adds to an error's message: how to go on
// with this command line's flags and commands, which the library's
// errors do not name (a program using the library goes on through
// Options and methods instead). The text goes right after the message;
// "" when there is nothing to add.
func hint(err error) string {
	var conflict *turnback.ConflictError
	var unfinished *turnback.UnfinishedError
	switch {
	case errors.As(err, &conflict):
		return " (use --force to proceed: the edits stay recoverable)"
	case errors.As(err, &unfinished):
		return "\nturnback: fix the cause, then run \"turnback recover\" (any command tries again) to finish it, " +
			"or \"turnback recover --rollback\" to put back the state before it"
	case errors.Is(err, turnback.ErrScope):
		return " (use --force if you mean it)"
	case errors.Is(err, turnback.ErrStoreInWorkTree):
		return "; put it elsewhere (--store or TURNBACK_STORE)"
	case errors.Is(err, turnback.ErrUnverified):
		return " (run 'turnback verify'; the file itself is untouched)"
	}
	return ""
}

// hinted is an error as the CLI words it: its message and its hint.
type hinted struct{ error }

func (h hinted) Error() string { return h.error.Error() + hint(h.error) }
func (h hinted) Unwrap() error { return h.error }

// failHook logs a hook's failure to hook.log as stderr shows it (with
// its hint) and returns it for main to print.
func failHook(a *agent.Agent, store string, err error) error {
	a.Log(store, hinted{err})
	return err
}
