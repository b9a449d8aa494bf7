package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"time"
)

// How long stopping takes: see doc.go.
const (
	checkEvery = 200 * time.Millisecond
	// treeGoneFor: a folder gone for less (moved away and back, a
	// checkout that replaces it) is still watched; the watcher rebuilds.
	treeGoneFor = 600 * time.Millisecond
	// CmdGrace is how long a hard stop waits for the commands it
	// cancelled (and a daemon for its first capture once it stopped).
	CmdGrace  = 400 * time.Millisecond
	closeWait = time.Second
	// clientGrace bounds how long a stopping daemon waits for a client
	// that does not read its output.
	clientGrace = 10 * time.Second
)

// watchStop stops the daemon when ctx ends (a signal), it has been idle
// too long, or its socket, folder or store goes; it keeps looking after
// a soft stop (a hard reason then hurries it) until done is closed.
func (d *Server) watchStop(ctx context.Context, done <-chan struct{}) {
	tick := checkEvery
	if d.c.Idle > 0 && d.c.Idle/4 < tick {
		tick = max(d.c.Idle/4, 10*time.Millisecond)
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	sig := ctx.Done()
	var goneSince time.Time // when the work tree was first found gone
	for {
		select {
		case <-done:
			return
		case <-sig:
			d.Stop("signal", true)
			sig = nil
			continue
		case <-t.C:
		}
		if why := d.storeProblem(); why != "" {
			// Nothing can be captured into it, nor flushed: Badger's
			// Close would wait forever.
			d.Stop(why, true)
			continue
		}
		if why := d.treeProblem(); why != "" {
			// Gone for a moment: a folder moved away and back at once
			// is still watched (the watcher rebuilds); one that stays
			// gone or replaced leaves nothing to watch.
			if goneSince.IsZero() {
				goneSince = time.Now()
			} else if time.Since(goneSince) >= treeGoneFor {
				d.Stop(why, true)
			}
		} else {
			goneSince = time.Time{}
		}
		if why := d.socketProblem(); why != "" {
			// Removed (a temporary-file cleaner, say) or replaced:
			// nobody can reach this daemon, which still holds the
			// store. Let the store go.
			d.Stop(why, false)
		}
		if d.c.Idle <= 0 {
			continue
		}
		d.mu.Lock()
		idle := d.busy == 0 && time.Since(d.lastDone) >= d.c.Idle
		d.mu.Unlock()
		if idle {
			d.Stop(fmt.Sprintf("idle for %v", d.c.Idle), false)
		}
	}
}

// drainWait is how long a stopping daemon goes on accepting the
// connections queued on its socket, to answer each that nothing ran.
const drainWait = 200 * time.Millisecond

// Stop makes the daemon stop: it accepts no more clients and, once the
// commands it runs have ended, closes the store. A hard stop also
// cancels those commands and waits for them only briefly; it may come
// after a soft one.
func (d *Server) Stop(why string, hard bool) {
	first := false
	d.stopOnce.Do(func() {
		first = true
		d.c.Logf("stopping (%s)", why)
		close(d.stopped)
		if d.ln != nil {
			// No new client finds the socket; those already queued in
			// the listen backlog (connected, not yet accepted) are
			// accepted by Serve's loop until drainWait and answered
			// "stopping, nothing ran" (see handle), instead of meeting
			// a closed connection that cannot tell them whether their
			// request ran.
			d.removeSocket()
			if ul, ok := d.ln.(*net.UnixListener); !ok || ul.SetDeadline(time.Now().Add(drainWait)) != nil {
				d.ln.Close()
			}
		}
		if d.tcp != nil {
			d.tcp.Close()
		}
		if d.hconns != nil {
			d.hconns.Close()
		}
		// A client that stopped reading (a pager left open) must not
		// keep the daemon, and the store, forever: its command's output
		// gets a last clientGrace, then writes fail (the command itself
		// goes on to its end, as it would if its pipe broke).
		d.mu.Lock()
		defer d.mu.Unlock()
		for c := range d.conns {
			_ = c.SetWriteDeadline(time.Now().Add(clientGrace))
		}
	})
	if !hard {
		return
	}
	d.hardOnce.Do(func() {
		if !first {
			d.c.Logf("stopping at once (%s)", why)
		}
		close(d.hard)
		if d.cancel != nil {
			d.cancel(stoppingError{why})
		}
	})
}

// dirID is the identity of a directory the daemon depends on.
type dirID struct {
	path string
	fi   os.FileInfo
}

func statID(path string) dirID {
	fi, _ := os.Stat(path)
	return dirID{path: path, fi: fi}
}

// changed says how the directory is no longer the one it was, or "".
func (id dirID) changed() string {
	if id.fi == nil {
		return ""
	}
	fi, err := os.Stat(id.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "removed or moved"
	case err != nil:
		return "" // cannot tell (EACCES, EIO): not a reason to stop
	case !os.SameFile(fi, id.fi):
		return "replaced by another directory"
	}
	return ""
}

// storeIDs are what the daemon checks of its store.
func storeIDs(storeDir string) []dirID {
	return []dirID{statID(storeDir), statID(filepath.Join(storeDir, "db"))}
}

// storeProblem says what happened to the store, or "".
func (d *Server) storeProblem() string {
	for _, id := range d.storeID {
		if why := id.changed(); why != "" {
			return fmt.Sprintf("its store %s was %s", id.path, why)
		}
	}
	if len(d.storeID) > 0 && d.storeID[0].fi != nil {
		m := filepath.Join(d.c.StoreDir, "db", "MANIFEST")
		if _, err := os.Lstat(m); errors.Is(err, fs.ErrNotExist) {
			return fmt.Sprintf("its store %s lost its database (%s is gone)", d.c.StoreDir, m)
		}
	}
	return ""
}

// treeProblem says what happened to the work tree, or "".
func (d *Server) treeProblem() string {
	if why := d.treeID.changed(); why != "" {
		return fmt.Sprintf("its work tree %s was %s", d.c.WorkTree, why)
	}
	return ""
}

// socketProblem says whether the daemon's socket is gone or another's.
func (d *Server) socketProblem() string {
	if d.sockID == nil {
		return ""
	}
	if fi, err := os.Lstat(d.sock); err != nil || !os.SameFile(fi, d.sockID) {
		return "its socket " + d.sock + " was removed or replaced"
	}
	return ""
}

// removeSocket removes the daemon's socket if it is still its own (a
// store replaced by another may hold another daemon's).
func (d *Server) removeSocket() {
	if d.socketProblem() == "" {
		_ = os.Remove(d.sock)
	}
}

// waitActive waits for the commands being run: all the time they need
// on a soft stop, CmdGrace once the stop is hard.
func (d *Server) waitActive() bool {
	done := make(chan struct{})
	go func() {
		d.active.Wait()
		// Stopped: no HTTP request counts itself in after this.
		d.mu.Lock()
		d.mu.Unlock() //nolint:staticcheck // a barrier
		d.httpActive.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-d.hard:
	}
	select {
	case <-done:
		return true
	case <-time.After(CmdGrace):
		return false
	}
}

// closeStore closes the store, waiting at most closeWait. A store whose
// directory is gone, moved or replaced is not closed at all: Badger
// would create the tables it flushes by path, in whatever directory now
// has the store's name.
func (d *Server) closeStore() error {
	if p := d.storeProblem(); p != "" {
		return fmt.Errorf("daemon: %s: exiting without closing it; what it had not flushed "+
			"stays in its write-ahead files (replayed when the store is opened where it is now)", p)
	}
	closed := make(chan error, 1)
	go func() { closed <- d.c.Store.Close() }()
	select {
	case err := <-closed:
		return err
	case <-time.After(closeWait):
	}
	why := ""
	if p := d.storeProblem(); p != "" {
		why = " (" + p + ")"
	}
	return fmt.Errorf("daemon: could not close the store %s within %v%s; exiting without: "+
		"what it had not flushed is replayed by the next command that opens it", d.c.StoreDir, closeWait, why)
}
