package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// How a watch daemon stops.
//
// A daemon stops for a soft reason (watch --stop, its idle timeout, a
// client of another protocol, its socket removed) or a hard one
// (SIGTERM or SIGINT, its folder removed or replaced, its store removed,
// replaced or moved). On a soft stop it lets the commands it runs
// finish; on a hard one it cancels them and gives them cmdGrace. Either
// way, closing the store is never waited for longer than closeWait (a
// command stuck in the store holds the Repo's lock), and a store whose
// directory is gone, moved or replaced is not closed at all: it cannot
// be flushed (Badger retries the flush of its memtable forever, and its
// Close waits for that; a replacement directory would receive its
// tables). A daemon that did not close its store says why on stderr
// (watch.log for a detached daemon) and exits 1: what the store had not
// flushed is in its write-ahead files, replayed by the next open as
// after a crash, and the lock goes with the process.
//
// The daemon finds out that its folder or store is gone by looking at
// them every checkEvery: the folder must keep its identity (device and
// inode; a folder moved away and back keeps it) and the store its
// directory, its db directory and Badger's MANIFEST.
const (
	checkEvery = 200 * time.Millisecond
	// treeGoneFor: a folder gone for less (moved away and back, a
	// checkout that replaces it) is still watched; the watcher rebuilds.
	treeGoneFor = 600 * time.Millisecond
	cmdGrace    = 400 * time.Millisecond
	closeWait   = time.Second
)

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
func (d *daemon) storeProblem() string {
	for _, id := range d.storeID {
		if why := id.changed(); why != "" {
			return fmt.Sprintf("its store %s was %s", id.path, why)
		}
	}
	if len(d.storeID) > 0 && d.storeID[0].fi != nil {
		m := filepath.Join(d.storeDir, "db", "MANIFEST")
		if _, err := os.Lstat(m); errors.Is(err, fs.ErrNotExist) {
			return fmt.Sprintf("its store %s lost its database (%s is gone)", d.storeDir, m)
		}
	}
	return ""
}

// treeProblem says what happened to the work tree, or "".
func (d *daemon) treeProblem() string {
	if why := d.treeID.changed(); why != "" {
		return fmt.Sprintf("its work tree %s was %s", d.workTree, why)
	}
	return ""
}

// socketProblem says whether the daemon's socket is gone or another's.
func (d *daemon) socketProblem() string {
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
func (d *daemon) removeSocket() {
	if d.socketProblem() == "" {
		_ = os.Remove(d.sock)
	}
}

// waitActive waits for the commands being run: all the time they need
// on a soft stop, cmdGrace once the stop is hard.
func (d *daemon) waitActive() bool {
	done := make(chan struct{})
	go func() {
		d.active.Wait()
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
	case <-time.After(cmdGrace):
		return false
	}
}

// closeStore closes the store, waiting at most closeWait. A store whose
// directory is gone, moved or replaced is not closed at all: Badger
// would create the tables it flushes by path, in whatever directory now
// has the store's name.
func (d *daemon) closeStore() error {
	if p := d.storeProblem(); p != "" {
		return fmt.Errorf("turnback: watch: %s: exiting without closing it; what it had not flushed "+
			"stays in its write-ahead files (replayed when the store is opened where it is now)", p)
	}
	closed := make(chan error, 1)
	go func() { closed <- d.repo.Close() }()
	select {
	case err := <-closed:
		return err
	case <-time.After(closeWait):
	}
	why := ""
	if p := d.storeProblem(); p != "" {
		why = " (" + p + ")"
	}
	return fmt.Errorf("turnback: watch: could not close the store %s within %v%s; exiting without: "+
		"what it had not flushed is replayed by the next command that opens it", d.storeDir, closeWait, why)
}
