package turnback

import (
	"context"
	"fmt"
	"os"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/handoff"
	"github.com/turnback/turnback/walker"
	"github.com/turnback/turnback/watch"
)

// A command that starts a watch daemon while its own capture runs can
// hand that capture over to it: the protocol and the handoff file are
// in package internal/handoff. Here are the parts that need the Repo.

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
	handoff.Remove(r.storeDir)
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
	if len(early) > handoff.MaxDirs {
		return
	}
	handoff.Write(r.storeDir, handoff.Doc{WorkTree: r.workTree, Daemon: pid, Root: res.Root.String(), Index: r.gitIdx.Stamps(res.Root), Skipped: res.Skipped,
		TrackedIgnored: res.TrackedIgnored, SizeLimit: r.opts.SizeLimit, LargeDirFiles: r.opts.LargeDirFiles, Early: early, Totals: opts.Totals.AppendPlain(nil)})
}

// takeHandoff reads and removes the handoff file and, if it is this
// daemon's and can be trusted (see package internal/handoff), makes its
// capture ws's base and returns how many directories the first capture
// reads again.
// ws's watcher was built by StartWatcher, and no capture took it yet.
func (r *Repo) takeHandoff(ctx context.Context, ws *watchState) (int, error) {
	doc, err := handoff.Read(r.storeDir, r.workTree, r.opts.SizeLimit, r.opts.LargeDirFiles)
	if err != nil {
		return 0, err
	}
	root, err := cas.ParseHash(doc.Root)
	if err != nil {
		return 0, fmt.Errorf("%w: root: %v", handoff.ErrNone, err)
	}
	if ok, err := r.store.HasContent(ctx, root); err != nil || !ok {
		return 0, fmt.Errorf("%w: its root %s is not in the store (%v)", handoff.ErrNone, root.Short(), err)
	}
	// Totals depend on a tree's content alone: loading them is harmless
	// even if the handoff is not used after all.
	if err := ws.totals.LoadPlain(doc.Totals); err != nil {
		return 0, fmt.Errorf("%w: %v", handoff.ErrNone, err)
	}
	if !ws.w.CountFromStart() {
		return 0, fmt.Errorf("%w: the watcher was in doubt", handoff.ErrNone)
	}
	dirs := make(map[string]bool, len(doc.Early))
	for _, d := range doc.Early {
		dirs[d] = true
	}
	ws.base, ws.sizeLimit, ws.largeDirFiles = root, doc.SizeLimit, doc.LargeDirFiles
	ws.pending = watch.Changes{Dirs: dirs}
	ws.took = true
	r.gitIdx.Adopt(root, doc.Index, doc.Skipped)
	r.gitIdx.AdoptTrackedIgnored(root, doc.TrackedIgnored)
	return len(dirs), nil
}
