package turnback

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/handoff"
	"github.com/turnback/turnback/walker"
	"github.com/turnback/turnback/walker/gitindex"
	"github.com/turnback/turnback/watch"
)

// A command that starts a watch daemon while its own capture runs (the
// daemon then builds its watcher meanwhile: StartWatcher) can hand that
// capture over, so that the daemon, once it has the store, needs no
// first capture of its own (Repo.Watch):
//
//   - The command arms its Repo (handoff.Arm, package internal/handoff)
//     before it captures. Each capture then notes, as it goes, the
//     directories it lists before the daemon has said that it watches
//     every directory (Handoff.Built).
//   - A directory listed after that was listed with its watch in place:
//     whatever changed in it after the listing, the watcher reports
//     (watch.Watcher.CountFromStart counts the events that came during
//     the build). One listed before may have changed unseen.
//   - The directories below an early one that the capture listed after
//     that were reached through the early one's handle and under its
//     ignore files as they were when it was listed: a directory moved
//     or replaced at its path, or rules that changed, before its watch
//     was added, no event reports. So each early directory's print
//     (handoff.DirPrint: its identity and ignore files) is taken when it is
//     listed and again after the re-list (below): any difference, and
//     no handoff is written.
//   - After a capture, if the daemon has said so, the command writes the
//     handoff file in the store directory (atomically): the capture's
//     root, its settings, the directories listed too early, the counts
//     of its trees (walker.TreeTotals.AppendPlain) and the daemon's pid.
//     Each armed capture first removes the file an earlier one left
//     (and Watch removes it when a command's capture is its base
//     already): a handoff nobody took must not wait for a later daemon
//     that gets the same pid.
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
const handoffVersion = 2

// maxHandoffDirs bounds the directories listed too early that a handoff
// carries: beyond it the daemon's first capture might as well read
// everything, and no handoff is written.
const maxHandoffDirs = 1 << 16

// armHandoff is handoff.Arm: it arms r for handing its captures over
// and returns the Handoff (see package internal/handoff).
func (r *Repo) armHandoff() *handoff.Handoff {
	r.hold()
	defer r.unlock()
	if r.handoff == nil {
		r.handoff = &handoff.Handoff{}
	}
	return r.handoff
}

func init() { handoff.Arm = func(repo any) *handoff.Handoff { return repo.(*Repo).armHandoff() } }

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
	// Index: the git index versions the capture was made under
	// (walker.GitIndexes.Stamps): the daemon's next capture reads only
	// what changed if they are still current.
	Index []gitindex.Stamp `json:"index,omitempty"`
	// Skipped: what the capture skipped (walker.Result.Skipped), which
	// the daemon's incremental captures carry over for directories they
	// do not read.
	Skipped []walker.Ignored `json:"skipped,omitempty"`
}

// prepareHandoff sets opts up for a capture that may be handed over:
// it notes the directories listed too early (with their prints) and
// counts the trees.
func (r *Repo) prepareHandoff(opts *walker.Options) *handoff.Handoff {
	h := r.handoff
	if h == nil || r.watch != nil || r.readOnly {
		return nil
	}
	h.Begin(r.workTree)
	// A handoff left by an earlier capture (of this command, or of one
	// whose daemon never took it: it died, or had a base already) is
	// stale from now on: a daemon with that pid (pid reuse, or a
	// process running both sides) would take a base older than changes
	// its watcher never saw. This capture writes its own, or none.
	_ = os.Remove(filepath.Join(r.storeDir, handoffName))
	opts.Listing = h.Listing
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
func (r *Repo) writeHandoff(ctx context.Context, root *os.Root, h *handoff.Handoff, opts walker.Options, res *walker.Result) {
	pid := h.Daemon()
	if pid == 0 || !h.IsBuilt() {
		return
	}
	early, prints := h.Take()
	if len(early) > 0 {
		dirs := make(map[string]bool, len(early))
		for _, d := range early {
			dirs[d] = true
		}
		again := opts
		again.Base, again.Dirty, again.Progress = res.Root, watch.Changes{Dirs: dirs}.Dirty(), nil
		// The large-new-directory rule judges against the previous
		// capture, res, as the daemon's captures do (their Previous is
		// their base): against the snapshot before it, a directory
		// res captured could become "new" and uncaptured for good.
		again.Previous = res.Root
		res2, err := walker.Capture(ctx, root, r.store, again)
		if err != nil {
			return
		}
		for _, d := range early {
			// The directories below an early one that the capture
			// listed after the build were reached through its handle
			// and followed its ignore files, as they were when it was
			// listed; the re-list reused them. A directory moved or
			// replaced there, or rules changed, before its watch was
			// added, are seen by no event: the daemon must read
			// everything.
			if !prints[d].Same(h.Print(d)) {
				return
			}
		}
		early = h.Early() // none: listed once built
		res = res2
	}
	if len(early) > maxHandoffDirs {
		return
	}
	doc := handoffDoc{Version: handoffVersion, WorkTree: r.workTree, Daemon: pid, Root: res.Root.String(), Index: r.gitIdx.Stamps(res.Root), Skipped: res.Skipped,
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
// daemon's and can be trusted (see the top of this file), makes its
// capture ws's base and returns how many directories the first capture
// reads again.
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
	r.gitIdx.Adopt(root, doc.Index, doc.Skipped)
	return len(dirs), nil
}
