//go:build unix

package cas

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// lockPoll is how often lockFreed tries Badger's lock during the first
// lockPollFast of a wait, lockPollSlow after (a daemon started early
// may wait as long as a capture of millions of files runs).
const (
	lockPoll     = 2 * time.Millisecond
	lockPollSlow = 10 * time.Millisecond
	lockPollFast = time.Second
)

// lockFreed returns a channel closed once the lock Badger takes on its
// directory dir could be taken (exclusive, or shared for a reader): a
// goroutine tries it (flock(2), without blocking) every lockPoll (then
// lockPollSlow), and gives it back at once when it gets it. OpenBadger
// then tries again at once, instead of at the end of its pause: after a
// command exits, a daemon started early and the next command wait for
// that. The lock may be taken by another process in between: the open
// then fails again, and waits again. The goroutine ends when stop is
// closed. A nil channel (dir cannot be opened) is never ready: the
// pauses alone pace the wait.
func lockFreed(dir string, shared bool, stop <-chan struct{}) <-chan struct{} {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	ch := make(chan struct{})
	how := unix.LOCK_EX | unix.LOCK_NB
	if shared {
		how = unix.LOCK_SH | unix.LOCK_NB
	}
	go func() {
		defer f.Close()
		fd := int(f.Fd())
		t := time.NewTicker(lockPoll)
		defer t.Stop()
		slow := time.Now().Add(lockPollFast)
		for {
			if unix.Flock(fd, how) == nil {
				_ = unix.Flock(fd, unix.LOCK_UN)
				close(ch)
				return
			}
			select {
			case <-stop:
				return
			case now := <-t.C:
				if !slow.IsZero() && now.After(slow) {
					t.Reset(lockPollSlow)
					slow = time.Time{}
				}
			}
		}
	}()
	return ch
}

// canLockDir: here turnback can take Badger's directory lock itself
// (flock(2) on the directory, as Badger does), which a deferred open
// needs.
const canLockDir = true

// lockDir takes Badger's lock on the database directory dir, exclusive,
// without waiting: errDirLocked when another process holds it. Closing
// the file gives it back.
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("cas: lock %s: %w", dir, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, errDirLocked
		}
		return nil, fmt.Errorf("cas: lock %s: %w", dir, err)
	}
	return f, nil
}
