package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// logMax is the size past which hook.log starts again, the full one
// kept as hook.log.1: hooks that fail at every prompt (an agent run in a
// refused folder) must not grow it without end.
const logMax = 1 << 20

// Log appends a hook's failure to hook.log in the store directory (or in
// the default store root when the store is not known). A log that
// cannot be written is given up silently: the failure is on stderr too.
func (a *Agent) Log(store string, err error) {
	dir := store
	if dir == "" {
		root, rerr := turnback.DefaultStoreRoot()
		if rerr != nil {
			return
		}
		dir = root
	}
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	name := filepath.Join(dir, "hook.log")
	if fi, err := os.Lstat(name); err == nil && fi.Size() >= logMax {
		// The previous log is kept whole; the one before it goes.
		_ = os.Rename(name, name+".1")
	}
	f, ferr := os.OpenFile(name, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if ferr != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%s hook %s: %s\n", time.Now().Format(time.RFC3339), a.Name, termout.SafeText(err.Error()))
}

// Failure is a hook's error: reported on stderr only, since stdout
// belongs to the agent (also with --json).
type Failure struct{ Err error }

func (e Failure) Error() string { return e.Err.Error() }

func (e Failure) Unwrap() error { return e.Err }
