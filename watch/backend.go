// The watcher's event source, as the loop sees it: see "Backends" in the
// package doc.

package watch

import (
	"errors"
	"fmt"

	"github.com/fsnotify/fsnotify"
)

// backend is one generation of the system's file-change notifications.
// The loop makes a new one at every build (newBackend) and closes it at
// the next. It is driven from the loop goroutine only; Events and Errors
// are read by the pump.
type backend interface {
	// Add starts reporting events on the entries of directory path
	// (absolute). Adding a directory already added is not an error.
	Add(path string) error
	// Remove stops reporting on directory path. Errors are ignored by
	// the loop (the directory may be gone).
	Remove(path string) error
	// Events delivers events in the order the changes happened, for
	// every directory added (the cookie directory included, which Sync
	// relies on); closed by Close.
	Events() <-chan event
	// Errors delivers failures; one that wraps errOverflow says events
	// were dropped. Closed by Close.
	Errors() <-chan error
	// Close releases everything; the channels are then closed.
	Close() error
}

// op is what happened to an event's path (a set: several may be
// reported at once).
type op uint32

const (
	opCreate op = 1 << iota // created, or moved into a watched directory
	opWrite                 // content written
	opRemove                // removed
	opRename                // moved away (its new place, if watched, is a Create)
	opChmod                 // attributes changed
	// opRescan: events on the directory at the path and everything
	// below it were coalesced or lost; the loop reads that subtree
	// again (FSEvents' MustScanSubDirs). The root: doubt.
	opRescan
)

// event is one change reported by a backend: an absolute path and what
// happened to it.
type event struct {
	Name string
	Op   op
}

// Has reports whether e has any of the ops of o.
func (e event) Has(o op) bool { return e.Op&o != 0 }

// errOverflow is wrapped by a backend error meaning events were dropped
// (the kernel's queue overflowed): the watcher doubts and rebuilds.
var errOverflow = errors.New("events were dropped")

// newFSNotify is the default backend: fsnotify (inotify on Linux,
// kqueue on macOS and the BSDs, ReadDirectoryChangesW on Windows).
func newFSNotify() (backend, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	b := &fsnBackend{
		fsw:    fsw,
		events: make(chan event),
		errors: make(chan error),
		done:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	go b.run()
	return b, nil
}

// fsnBackend adapts an fsnotify.Watcher: it translates events and
// errors one by one, keeping their order.
type fsnBackend struct {
	fsw    *fsnotify.Watcher
	events chan event
	errors chan error
	done   chan struct{} // closed by Close
	exited chan struct{} // closed when run returns
}

func (b *fsnBackend) Add(path string) error    { return b.fsw.Add(path) }
func (b *fsnBackend) Remove(path string) error { return b.fsw.Remove(path) }
func (b *fsnBackend) Events() <-chan event     { return b.events }
func (b *fsnBackend) Errors() <-chan error     { return b.errors }

func (b *fsnBackend) Close() error {
	select {
	case <-b.done:
		return nil
	default:
	}
	close(b.done)
	err := b.fsw.Close()
	<-b.exited
	return err
}

// fsnOps maps fsnotify's ops onto the backend's.
var fsnOps = [...]struct {
	from fsnotify.Op
	to   op
}{
	{fsnotify.Create, opCreate},
	{fsnotify.Write, opWrite},
	{fsnotify.Remove, opRemove},
	{fsnotify.Rename, opRename},
	{fsnotify.Chmod, opChmod},
}

func (b *fsnBackend) run() {
	defer close(b.exited)
	defer close(b.events)
	defer close(b.errors)
	for {
		select {
		case <-b.done:
			return
		case ev, ok := <-b.fsw.Events:
			if !ok {
				return
			}
			var o op
			for _, m := range fsnOps {
				if ev.Has(m.from) {
					o |= m.to
				}
			}
			select {
			case b.events <- event{Name: ev.Name, Op: o}:
			case <-b.done:
				return
			}
		case err, ok := <-b.fsw.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				err = fmt.Errorf("kernel event queue overflow (fs.inotify.max_queued_events): %w", errOverflow)
			}
			select {
			case b.errors <- err:
			case <-b.done:
				return
			}
		}
	}
}
