package daemon

import (
	"context"
	"os"
	"syscall"
	"time"

	"github.com/turnback/turnback"
	wd "github.com/turnback/turnback/watch/daemon"
)

// earlyLockWait bounds the wait of a daemon started early for the store
// while the process that started it runs; StopWaiting ends it sooner.
const earlyLockWait = 24 * time.Hour

// buildEarly is the start of a daemon that a command started while it
// still captures the folder, holding the store (Options.EarlyPID):
// it watches every directory now, as that capture runs, and sets opts
// to wait for the store as long as that process lives, then
// turnback.DefaultLockWait more, unless another daemon answers for the
// store meanwhile. Its first capture, once it has the store, starts
// after every directory was watched: it is the base (Repo.Watch).
func buildEarly(ctx context.Context, o Options, storeDir string, logf func(string, ...any), opts *turnback.Options) (*turnback.Watcher, error) {
	start := time.Now()
	w, err := turnback.StartWatcher(ctx, o.WorkTree, storeDir, turnback.WatchOptions{QueueSize: o.Queue, Logf: logf})
	if err != nil {
		return nil, err
	}
	if o.Built != nil {
		if fd, ino, ok := o.Built(os.Getenv); ok {
			tellBuilt(fd, ino)
		}
	}
	logf("watching every directory (built in %v) while the command that started this daemon (pid %d) captures; waiting for the store",
		time.Since(start).Round(time.Millisecond), o.EarlyPID)
	var gone time.Time
	opts.LockWait = earlyLockWait
	opts.StopWaiting = func() bool {
		if wd.Answers(storeDir) {
			return true // another daemon serves the store
		}
		if alive(o.EarlyPID) {
			return false
		}
		if gone.IsZero() {
			gone = time.Now()
		}
		return time.Since(gone) > turnback.DefaultLockWait
	}
	return w, nil
}

// alive reports whether process pid runs (where that cannot be told,
// false: the wait is then turnback.DefaultLockWait).
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}
