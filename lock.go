package turnback

// Operations on one open store run one at a time, whichever view (see
// View) they come from: each takes the store lock, a token in a channel
// of capacity one, and gives it back when it returns. A wait for the store lock
// ends when the caller's context is done; a view also gives up after its
// LockWait, as Open does for another process.

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// lock takes the store for one operation, waiting as long as ctx allows
// (see acquire). It first finishes (or rolls back) a restore that failed
// part way in this process, as Open does for one that a crash
// interrupted.
func (r *Repo) lock(ctx context.Context) error {
	if err := r.lockOnly(ctx); err != nil {
		return err
	}
	if r.recover {
		// Finishing a committed restore is not interrupted part way.
		if err := r.recoverRestore(context.WithoutCancel(ctx)); err != nil {
			r.unlock()
			return err
		}
		r.recover = false
	}
	return nil
}

// lockOnly takes the store without finishing an interrupted restore
// (Recover does that itself).
func (r *Repo) lockOnly(ctx context.Context) error {
	if r.be != nil && r.be.Served() {
		return errRemote // a method the daemon does not run for others
	}
	if err := r.acquire(ctx); err != nil {
		return err
	}
	r.holderMu.Lock()
	r.holder = r.opts.Holder
	r.holderMu.Unlock()
	if r.closed {
		r.unlock()
		return errors.New("turnback: repo is closed")
	}
	return nil
}

// acquire takes the store lock. While another operation holds it, a
// Repo from Open waits until ctx is done; a view waits for the operation
// of another view as Open waits for another process: up to
// Options.LockWait (default DefaultLockWait, negative: not at all),
// calling OnWait once, then fails with ErrBusy naming the operation that
// holds the store. A wait that ctx ends fails with an error wrapping
// ctx.Err().
func (r *Repo) acquire(ctx context.Context) error {
	for {
		select {
		case r.storeLock <- struct{}{}:
			return nil
		default:
		}
		r.holderMu.Lock()
		tail := r.tail
		r.holderMu.Unlock()
		if tail == nil {
			break
		}
		// The last operation has answered and only finishes the work it
		// left for later (unlock): a wait for that is part of it,
		// however short LockWait.
		select {
		case <-tail:
		case <-ctx.Done():
			return fmt.Errorf("turnback: waiting for the end of an operation on %s: %w", r.storeDir, ctx.Err())
		}
	}
	r.holderMu.Lock()
	holder := r.holder
	r.holderMu.Unlock()
	if holder == "" {
		holder = "another operation of this process"
	}
	var expired <-chan time.Time
	if r.view {
		wait := r.opts.LockWait
		if wait == 0 {
			wait = DefaultLockWait
		}
		if wait < 0 {
			return fmt.Errorf("%w: %s is held by %s", ErrBusy, r.storeDir, holder)
		}
		if r.opts.OnWait != nil {
			r.opts.OnWait(holder)
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		expired = t.C
	}
	select {
	case r.storeLock <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("turnback: waiting for %s to release %s: %w", holder, r.storeDir, ctx.Err())
	case <-expired:
		return fmt.Errorf("%w: %s is held by %s", ErrBusy, r.storeDir, holder)
	}
}

// hold takes the store lock however long that takes (Close and
// WatchProblem, which have no context and must not fail).
func (r *Repo) hold() { r.storeLock <- struct{}{} }

// unlock gives the store lock back, after running the work the
// operation left for its end (later). In a watching Repo (the daemon)
// that work runs after the caller has its answer, still holding the
// store lock: the next operation waits for it.
func (r *Repo) unlock() {
	work := r.after
	r.after = nil
	if len(work) == 0 {
		<-r.storeLock
		return
	}
	if r.watch != nil {
		// A view that comes meanwhile waits for this (acquire), however
		// short its LockWait: the operation is over for its caller.
		done := make(chan struct{})
		r.holderMu.Lock()
		r.tail = done
		r.holderMu.Unlock()
		go func() {
			defer func() {
				r.holderMu.Lock()
				if r.tail == done {
					r.tail = nil
				}
				r.holderMu.Unlock()
				<-r.storeLock
				close(done)
			}()
			for _, f := range work {
				f()
			}
		}()
		return
	}
	for _, f := range work {
		f()
	}
	<-r.storeLock
}

// later leaves f to run at the end of the current operation (see
// unlock): work whose result no caller waits for, such as teaching the
// stat cache what a restore wrote. The caller holds the store lock.
func (r *Repo) later(f func()) { r.after = append(r.after, f) }
