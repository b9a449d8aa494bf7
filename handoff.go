package turnback

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/walker"
	"github.com/turnback/turnback/watch"
)

// A command that starts a watch daemon while its own capture runs (the
// daemon then builds its watcher meanwhile: StartWatcher) can hand that
// capture over, so that the daemon, once it has the store, needs no
// first capture of its own (Repo.Watch):
//
//   - The command arms its Repo (Repo.Handoff) before it captures. Each
//     capture then notes, as it goes, the directories it lists before
//     the daemon has said that it watches every directory (Handoff.Built).
//   - A directory listed after that was listed with its watch in place:
//     whatever changed in it after the listing, the watcher reports
//     (watch.Watcher.CountFromStart counts the events that came during
//     the build). One listed before may have changed unseen.
//   - After a capture, if the daemon has said so, the command writes the
//     handoff file in the store directory (atomically): the capture's
//     root, its settings, the directories listed too early, the counts
//     of its trees (walker.TreeTotals.AppendPlain) and the daemon's pid.
//   - The daemon, in Watch, takes the file (and removes it). If it names
//     this process and this work tree, was made with the same settings,
//     its root is in the store and the watcher has not doubted, the root
//     is the base and the directories listed too early are dirty, with
//     everything the watcher reported since: the first capture reads
//     those alone. Otherwise Watch makes its first capture as without a
//     handoff.

// handoffName is the handoff file in the store directory.
const handoffName = "watch-handoff"

// handoffVersion is the version of handoffDoc.
const handoffVersion = 1

// maxHandoffDirs bounds the directories listed too early that a handoff
// carries: beyond it the daemon's first capture might as well read
// everything, and no handoff is written.
const maxHandoffDirs = 1 << 16

// Handoff is a command's side of the handoff of its capture to the watch
// daemon it started while capturing (see Repo.Handoff). Its methods are
// safe for concurrent use.
type Handoff struct {
	built  atomic.Bool
	daemon atomic.Int64
	mu     sync.Mutex
	early  []string // of the running capture: listed before built
	// pace, set by tests, is called before each directory is listed.
	pace func(rel string)
}

// Started records the daemon's process id: the handoff names it.
func (h *Handoff) Started(pid int) { h.daemon.Store(int64(pid)) }

// Built records that the daemon watches every directory (its
// StartWatcher returned): a directory listed from now on is vouched for.
func (h *Handoff) Built() { h.built.Store(true) }

// listing is the capture's walker.Options.Listing.
func (h *Handoff) listing(rel string) {
	if h.pace != nil {
		h.pace(rel)
	}
	if h.built.Load() {
		return
	}
	h.mu.Lock()
	h.early = append(h.early, rel)
	h.mu.Unlock()
}

// begin starts the notes of a capture.
func (h *Handoff) begin() {
	h.mu.Lock()
	h.early = nil
	h.mu.Unlock()
}

// Handoff arms r, a Repo of this process that holds the store (not a
// daemon's view, not read-only, not watching), for handing its captures
// over to a watch daemon it starts (see Handoff), and returns the
// Handoff through which the caller says when the daemon started and
// when it watches every directory. A capture that runs before both
// hands nothing over.
func (r *Repo) Handoff() *Handoff {
	r.hold()
	defer r.unlock()
	if r.handoff == nil {
		r.handoff = &Handoff{}
	}
	return r.handoff
}

// handoffDoc is the handoff file.
type handoffDoc struct {
	Version       int    `json:"version"`
	WorkTree      string `json:"work_tree"`
	Daemon        int    `json:"daemon_pid"`
	Root          string `json:"root"`
	SizeLimit     int64  `json:"size_limit"`
	LargeDirFiles int    `json:"large_dir_files"`
	// Early: the directories the capture listed before every directory
	// was watched.
	Early []string `json:"early"`
	// Totals: walker.TreeTotals.AppendPlain of the capture's trees.
	Totals []byte `json:"totals"`
}

// prepareHandoff sets opts up for a capture that may be handed over:
// it notes the directories listed too early and counts the trees.
func (r *Repo) prepareHandoff(opts *walker.Options) *Handoff {
	h := r.handoff
	if h == nil || r.watch != nil || r.readOnly {
		return nil
	}
	h.begin()
	opts.Listing = h.listing
	opts.Totals = walker.NewTreeTotals()
	return h
}

// writeHandoff writes the handoff file for capture res (made with opts)
// when the daemon watches every directory. The directories the capture
// listed before that are read again first (an incremental capture from
// res), so that the daemon's first capture need not: that costs this
// command, whose capture was long anyway, a stat walk of those
// directories, where the daemon's first answer would wait for it.
// Failing to write it only leaves the daemon to make its first capture:
// it is not an error.
func (r *Repo) writeHandoff(ctx context.Context, root *os.Root, h *Handoff, opts walker.Options, res *walker.Result) {
	pid := h.daemon.Load()
	if pid == 0 || !h.built.Load() {
		return
	}
	h.mu.Lock()
	early := h.early
	h.early = nil
	h.mu.Unlock()
	if len(early) > 0 {
		dirs := make(map[string]bool, len(early))
		for _, d := range early {
			dirs[d] = true
		}
		again := opts
		again.Base, again.Dirty, again.Progress = res.Root, watch.Changes{Dirs: dirs}.Dirty(), nil
		res2, err := walker.Capture(ctx, root, r.store, again)
		if err != nil {
			return
		}
		h.mu.Lock()
		early = h.early // none: listed once built
		h.mu.Unlock()
		res = res2
	}
	if len(early) > maxHandoffDirs {
		return
	}
	doc := handoffDoc{Version: handoffVersion, WorkTree: r.workTree, Daemon: int(pid), Root: res.Root.String(),
		SizeLimit: r.opts.SizeLimit, LargeDirFiles: r.opts.LargeDirFiles, Early: early, Totals: opts.Totals.AppendPlain(nil)}
	data, err := json.Marshal(doc)
	if err != nil {
		return
	}
	p := filepath.Join(r.storeDir, handoffName)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		_ = os.Remove(tmp)
		return
	}
	if err := os.Rename(tmp, p); err != nil {
		_ = os.Remove(tmp)
	}
}

// errNoHandoff: no usable handoff (the reason is in the wrapping error).
var errNoHandoff = errors.New("no handoff")

// takeHandoff reads and removes the handoff file and, if it is this
// daemon's and can be trusted (see Handoff), makes its capture ws's base
// and returns how many directories the first capture reads again.
// ws's watcher was built by StartWatcher, and no capture took it yet.
func (r *Repo) takeHandoff(ctx context.Context, ws *watchState) (int, error) {
	p := filepath.Join(r.storeDir, handoffName)
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("%w: the command left none", errNoHandoff)
	}
	_ = os.Remove(p)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", errNoHandoff, err)
	}
	var doc handoffDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return 0, fmt.Errorf("%w: %s: %v", errNoHandoff, p, err)
	}
	switch {
	case doc.Version != handoffVersion:
		return 0, fmt.Errorf("%w: version %d", errNoHandoff, doc.Version)
	case doc.Daemon != os.Getpid():
		return 0, fmt.Errorf("%w: it is for process %d", errNoHandoff, doc.Daemon)
	case doc.WorkTree != r.workTree:
		return 0, fmt.Errorf("%w: it is for %s", errNoHandoff, doc.WorkTree)
	case doc.SizeLimit != r.opts.SizeLimit || doc.LargeDirFiles != r.opts.LargeDirFiles:
		return 0, fmt.Errorf("%w: capture settings (size limit or large-directory rule) differ", errNoHandoff)
	case len(doc.Early) > maxHandoffDirs:
		return 0, fmt.Errorf("%w: %d directories listed too early", errNoHandoff, len(doc.Early))
	}
	root, err := cas.ParseHash(doc.Root)
	if err != nil {
		return 0, fmt.Errorf("%w: root: %v", errNoHandoff, err)
	}
	if ok, err := r.store.HasContent(ctx, root); err != nil || !ok {
		return 0, fmt.Errorf("%w: its root %s is not in the store (%v)", errNoHandoff, root.Short(), err)
	}
	// Totals depend on a tree's content alone: loading them is harmless
	// even if the handoff is not used after all.
	if err := ws.totals.LoadPlain(doc.Totals); err != nil {
		return 0, fmt.Errorf("%w: %v", errNoHandoff, err)
	}
	if !ws.w.CountFromStart() {
		return 0, fmt.Errorf("%w: the watcher was in doubt", errNoHandoff)
	}
	dirs := make(map[string]bool, len(doc.Early))
	for _, d := range doc.Early {
		dirs[d] = true
	}
	ws.base, ws.sizeLimit, ws.largeDirFiles = root, doc.SizeLimit, doc.LargeDirFiles
	ws.pending = watch.Changes{Dirs: dirs}
	ws.took = true
	return len(dirs), nil
}
