package handoff

import (
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/walker/ignore"
)

// Arm arms repo (a *turnback.Repo of this process that holds the
// store: not a daemon's view, not read-only, not watching) for handing
// its captures over to a watch daemon it starts, and returns the
// Handoff through which the caller says when the daemon started and
// when it watches every directory. A capture that runs before both
// hands nothing over. Package turnback sets it when it is loaded; repo
// is an any because this package cannot import turnback.
var Arm func(repo any) *Handoff

// Handoff is a command's side of the handoff of its capture to the
// watch daemon it started while capturing. Its methods are safe for
// concurrent use.
type Handoff struct {
	built  atomic.Bool
	daemon atomic.Int64
	mu     sync.Mutex
	early  []string // of the running capture: listed before built
	// prints: each early directory as it was when listed (see DirPrint).
	prints map[string]DirPrint
	wt     string // the running capture's work tree
	// Pace, set by tests, is called before each directory is listed.
	Pace func(rel string)
}

// DirPrint is what the capture's view of the directories below an
// early directory depends on, beyond their own listings: which
// directory is at its path (the capture opens its subdirectories
// through its handle) and its ignore files.
type DirPrint struct {
	fi    os.FileInfo // nil: no directory there
	rules cas.Hash    // of its ignore files (names, kinds, contents)
}

// Print takes the print of directory rel of the running capture's work
// tree. It goes by path (cheaper than through the capture's os.Root,
// and the watcher knows directories by path too): a directory reached
// through a symlink that replaced an ancestor is not one (an ancestor
// of an early directory is early: its own print shows the symlink);
// the ignore files are only hashed.
func (h *Handoff) Print(rel string) DirPrint {
	if h.wt == "" {
		return DirPrint{}
	}
	dir := filepath.Join(h.wt, filepath.FromSlash(rel))
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return DirPrint{}
	}
	var b []byte
	for _, f := range ignore.FileNames {
		p := filepath.Join(dir, f)
		b = append(b, f...)
		if ifi, err := os.Lstat(p); err == nil && ifi.Mode().IsRegular() {
			if data, err := readIgnore(p); err == nil {
				b = append(b, '=')
				b = binary.AppendUvarint(b, uint64(len(data)))
				b = append(b, data...)
				continue
			}
		}
		b = append(b, '-')
	}
	return DirPrint{fi: fi, rules: cas.Sum(b)}
}

// Same reports whether p and q are prints of the same directory with
// the same ignore files (two of no directory are the same).
func (p DirPrint) Same(q DirPrint) bool {
	if p.fi == nil || q.fi == nil {
		return p.fi == nil && q.fi == nil
	}
	return os.SameFile(p.fi, q.fi) && p.rules == q.rules
}

// readIgnore reads an ignore file as the walker does (4 MiB at most).
func readIgnore(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 4<<20))
}

// Started records the daemon's process id: the handoff names it.
func (h *Handoff) Started(pid int) { h.daemon.Store(int64(pid)) }

// Built records that the daemon watches every directory (its
// StartWatcher returned): a directory listed from now on is vouched for.
func (h *Handoff) Built() { h.built.Store(true) }

// Daemon returns the process id Started recorded, 0 before.
func (h *Handoff) Daemon() int { return int(h.daemon.Load()) }

// IsBuilt reports whether Built was called.
func (h *Handoff) IsBuilt() bool { return h.built.Load() }

// Listing is the capture's walker.Options.Listing.
func (h *Handoff) Listing(rel string) {
	if h.Pace != nil {
		h.Pace(rel)
	}
	if h.built.Load() {
		return
	}
	// Taken before the capture opens it: a change after this is seen
	// when the caller takes the print again.
	p := h.Print(rel)
	h.mu.Lock()
	if h.prints != nil {
		h.early = append(h.early, rel)
		h.prints[rel] = p
	}
	h.mu.Unlock()
}

// Begin starts the notes of a capture of workTree.
func (h *Handoff) Begin(workTree string) {
	h.mu.Lock()
	h.early, h.prints, h.wt = nil, map[string]DirPrint{}, workTree
	h.mu.Unlock()
}

// Take returns the capture's notes, the early directories with their
// prints, and ends them: nothing listed from now on is noted.
func (h *Handoff) Take() (early []string, prints map[string]DirPrint) {
	h.mu.Lock()
	defer h.mu.Unlock()
	early, prints = h.early, h.prints
	h.early, h.prints = nil, nil
	return early, prints
}

// Early returns the early directories noted since Take (none: notes
// end at Take).
func (h *Handoff) Early() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.early
}
