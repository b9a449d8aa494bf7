package turnback

import (
	"context"
	"fmt"
	"os"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/cas/ref"
	"github.com/turnback/turnback/internal/handoff"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/internal/stateignore"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker"
	"github.com/turnback/turnback/watch"
)

// Snap captures the work tree as the before-state of a new turn. The
// session's open turn, if any, is closed at the same state (and dropped
// if it changed nothing), except that an unchanged open turn without a
// message or metadata is kept open by a snap without either, and
// nothing is recorded (SnapResult.Kept). The redo stack is kept: it is cleared only when
// a turn that changed the folder closes (closeOpen).
func (r *Repo) Snap(ctx context.Context, message string) (*SnapResult, error) {
	return r.SnapWith(ctx, SnapOptions{Message: message})
}

// SnapWith is Snap with a message, metadata and the notice to take
// (SnapOptions). Metadata CheckMeta refuses is an error wrapping
// ErrInvalidMeta, and nothing is recorded.
func (r *Repo) SnapWith(ctx context.Context, o SnapOptions) (*SnapResult, error) {
	return r.be.Snap(ctx, o)
}

func (l localRepo) Snap(ctx context.Context, o SnapOptions) (*SnapResult, error) {
	r := l.r
	if err := CheckMeta(o.Meta); err != nil {
		return nil, err
	}
	return r.snapMeta(ctx, o)
}

func (r *Repo) snap(ctx context.Context, message string, takeNotice bool) (*SnapResult, error) {
	return r.SnapWith(ctx, SnapOptions{Message: message, TakeNotice: takeNotice})
}

func (r *Repo) snapMeta(ctx context.Context, o SnapOptions) (*SnapResult, error) {
	message, takeNotice := o.Message, o.TakeNotice
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	res, err := r.capture(ctx)
	if err != nil {
		return nil, err
	}
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return nil, err
	}
	out := &SnapResult{Snapshot: res.Root, Session: r.session, Files: res.Stats.Files, Bytes: res.Stats.Bytes, Stats: res.Stats, Watch: res.Watch}
	if n, err := r.keepOpen(ctx, sess, res.Root, o); err != nil {
		return nil, err
	} else if n > 0 {
		out.Turn, out.Kept = n, true
		return out, nil
	}
	if out.PullEnded, err = r.pullEnding(ctx, sess); err != nil {
		return nil, err
	}
	var writes []cas.Entry
	var deletes [][]byte
	closed, dropped, w, d, err := r.closeOpen(ctx, sess, res.Root, "snap")
	if err != nil {
		return nil, err
	}
	writes, deletes = append(writes, w...), append(deletes, d...)
	out.Closed, out.Dropped = closed, dropped
	if dropped {
		if out.IgnoredChanged, err = r.ignoredChanged(ctx, closed.N, res.Skipped); err != nil {
			return nil, err
		}
	}
	t := &Turn{Session: r.session, N: sess.NextTurn, Message: model.FirstLine(message), Before: res.Root, Started: r.now(), Meta: copyMeta(o.Meta)}
	if sess.Agent == "" {
		sess.Agent = r.opts.Agent // the first agent to record into the session
	}
	sess.NextTurn++
	sess.Turns = append(sess.Turns, t.N)
	out.Turn = t.N
	sess.Last = res.Root.String()
	stamps, err := r.skipStampsEntry(t.N, res.Skipped)
	if err != nil {
		return nil, err
	}
	rec, err := r.snapshotEntry(ctx, res.Root, model.KindSnap, res.Stats.Files, res.Stats.Bytes, model.SkipInfoOfResult(res.Result))
	if err != nil {
		return nil, err
	}
	writes = append(writes, stamps, model.TurnEntry(t), model.SessionEntry(sess), rec)
	writes = append(writes, r.latestEntries(res.Root, res.Root)...)
	if takeNotice {
		n := &Notice{}
		if ok, err := r.getJSON(ctx, model.NoticeKey(r.session), n); err != nil {
			return nil, err
		} else if ok {
			out.Notice = n
			deletes = append(deletes, model.NoticeKey(r.session))
		}
	}
	if err := r.commit(ctx, writes, deletes); err != nil {
		return nil, err
	}
	if err := r.autoRetain(ctx, t.N); err != nil {
		out.RetentionErr = err
	}
	return out, nil
}

// keepOpen returns the number of the session's open turn when a snap
// with options o at state root would record nothing but the same turn
// under a new number (SnapResult.Kept): the turn is open at root, it and
// o carry no message or metadata, and the session, the store's newest
// snapshot and the notice o takes (none) would not change. 0 otherwise.
func (r *Repo) keepOpen(ctx context.Context, sess *model.SessionRecord, root cas.Hash, o SnapOptions) (int, error) {
	n := len(sess.Turns)
	if n == 0 || model.FirstLine(o.Message) != "" || len(o.Meta) > 0 || sess.Last != root.String() ||
		(sess.Agent == "" && r.opts.Agent != "") {
		return 0, nil
	}
	t, err := r.loadTurn(ctx, sess.Name, sess.Turns[n-1])
	if err != nil {
		return 0, err
	}
	if !t.Open() || t.Before != root || t.Message != "" || len(t.Meta) > 0 {
		return 0, nil
	}
	if latest, err := r.latest(ctx); err != nil || latest != root {
		return 0, err
	}
	if o.TakeNotice {
		if ok, err := r.getJSON(ctx, model.NoticeKey(r.session), &Notice{}); err != nil || ok {
			return 0, err
		}
	}
	return t.N, nil
}

// End captures the after-state of the session's open turn. With no open
// turn it records nothing and sets NoOpenTurn.
func (r *Repo) End(ctx context.Context) (*SnapResult, error) { return r.be.End(ctx) }

func (l localRepo) End(ctx context.Context) (*SnapResult, error) {
	r := l.r
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return nil, err
	}
	out := &SnapResult{Session: r.session}
	if n := len(sess.Turns); n == 0 {
		out.NoOpenTurn = true
		return out, nil
	} else if t, err := r.loadTurn(ctx, r.session, sess.Turns[n-1]); err != nil {
		return nil, err
	} else if !t.Open() {
		out.NoOpenTurn = true
		return out, nil
	}
	res, err := r.capture(ctx)
	if err != nil {
		return nil, err
	}
	out.Snapshot, out.Files, out.Bytes, out.Stats, out.Watch = res.Root, res.Stats.Files, res.Stats.Bytes, res.Stats, res.Watch
	if out.PullEnded, err = r.pullEnding(ctx, sess); err != nil {
		return nil, err
	}
	closed, dropped, writes, deletes, err := r.closeOpen(ctx, sess, res.Root, "end")
	if err != nil {
		return nil, err
	}
	out.Closed, out.Dropped = closed, dropped
	if closed != nil {
		out.Turn = closed.N
	}
	if dropped {
		if out.IgnoredChanged, err = r.ignoredChanged(ctx, closed.N, res.Skipped); err != nil {
			return nil, err
		}
	}
	sess.Last = res.Root.String()
	rec, err := r.snapshotEntry(ctx, res.Root, model.KindSnap, res.Stats.Files, res.Stats.Bytes, model.SkipInfoOfResult(res.Result))
	if err != nil {
		return nil, err
	}
	writes = append(writes, model.SessionEntry(sess), rec)
	writes = append(writes, r.latestEntries(res.Root, res.Root)...)
	if err := r.commit(ctx, writes, deletes); err != nil {
		return nil, err
	}
	return out, nil
}

// closeOpen closes the session's open turn (if any) at state after. It
// updates sess in place and returns the records to write and delete. A
// turn whose after equals its before is dropped; one that changed the
// folder starts a new timeline: the redo stack is cleared (its turns'
// records go).
func (r *Repo) closeOpen(ctx context.Context, sess *model.SessionRecord, after cas.Hash, by string) (*Turn, bool, []cas.Entry, [][]byte, error) {
	n := len(sess.Turns)
	if n == 0 {
		return nil, false, nil, nil, nil
	}
	t, err := r.loadTurn(ctx, sess.Name, sess.Turns[n-1])
	if err != nil {
		return nil, false, nil, nil, err
	}
	if !t.Open() {
		return nil, false, nil, nil, nil
	}
	t.After, t.ClosedBy, t.Ended = after, by, r.now()
	if t.After == t.Before {
		sess.Turns = sess.Turns[:n-1]
		sess.Dropped = t.N
		return t, true, nil, [][]byte{model.TurnKey(sess.Name, t.N), model.SkipsKey(sess.Name, t.N)}, nil
	}
	sess.Dropped = 0
	if err := r.countChanges(ctx, t); err != nil {
		return nil, false, nil, nil, err
	}
	var deletes [][]byte
	for _, g := range sess.Redo {
		for _, n := range g.Turns {
			deletes = append(deletes, model.TurnKey(sess.Name, n))
		}
	}
	if len(sess.Redo) > 0 {
		sess.RedoCleared, sess.RedoClearedBy = t.Ended, t.N
	}
	sess.Redo = nil
	return t, false, []cas.Entry{model.TurnEntry(t)}, append(deletes, model.SkipsKey(sess.Name, t.N)), nil
}

// countChanges fills the added/modified/deleted counts of a closed turn
// (files and symlinks; directories are not counted). A path its
// after-state skipped is not deleted (see changes).
func (r *Repo) countChanges(ctx context.Context, t *Turn) error {
	t.Added, t.Modified, t.Deleted = 0, 0, 0
	isDir := func(e *manifest.Entry) bool { return e != nil && e.Kind == manifest.KindDir }
	var deleted []Change
	err := manifest.Diff(ctx, r.loader(), t.Before, t.After, func(c manifest.Change) error {
		switch c.Kind {
		case manifest.Added:
			if !isDir(c.New) {
				t.Added++
			}
		case manifest.Deleted:
			deleted = append(deleted, Change{Path: c.Path, Kind: c.Kind, Old: c.Old})
		default:
			if !isDir(c.New) || !isDir(c.Old) {
				t.Modified++
			}
		}
		return nil
	})
	if err != nil || len(deleted) == 0 {
		return err
	}
	skip, err := r.skipInfoOfRoot(ctx, t.After)
	if err != nil {
		return err
	}
	deleted, _, err = notDeleted(ctx, stateignore.New(r.loader(), r.store, t.After, skip), nil, deleted)
	for _, c := range deleted {
		if !isDir(c.Old) {
			t.Deleted++
		}
	}
	return err
}

// commit writes and deletes the records of one command in a single
// transaction, then syncs. Once the records are about to be committed, a
// cancelled context no longer interrupts: a command either records all of
// its outcome or none of it.
func (r *Repo) commit(ctx context.Context, writes []cas.Entry, deletes [][]byte) error {
	if err := r.backend.Update(context.WithoutCancel(ctx), writes, deletes); err != nil {
		return err
	}
	return r.backend.Sync()
}

// captured is a capture's result and, for a watching Repo, how it read.
type captured struct {
	*walker.Result
	Watch *WatchInfo
}

// capture walks the work tree into the store: all of it, or for a
// watching Repo what changed since its previous capture.
func (r *Repo) capture(ctx context.Context) (*captured, error) {
	return r.captureWith(ctx, false)
}

// captureWith is capture; listIgnored makes it read every directory, so
// that what it skipped is judged afresh (walker.Options.ListIgnored).
func (r *Repo) captureWith(ctx context.Context, listIgnored bool) (*captured, error) {
	return r.captureIn(ctx, listIgnored, nil)
}

// captureIn is captureWith; a scope plan (scoped.go) makes it read only
// the plan's directories.
func (r *Repo) captureIn(ctx context.Context, listIgnored bool, scope *scopePlan) (*captured, error) {
	return r.captureFrom(ctx, listIgnored, scope, cas.Hash{})
}

// captureSince is capture with previous as the state the large-new-
// directory rule judges against (walker.Options.Previous), whether the
// capture is watched or not.
func (r *Repo) captureSince(ctx context.Context, previous cas.Hash) (*captured, error) {
	return r.captureFrom(ctx, false, nil, previous)
}

// captureFrom is captureIn; previous, if not zero, is the capture's
// Previous in place of the newest snapshot or the watcher's base.
func (r *Repo) captureFrom(ctx context.Context, listIgnored bool, scope *scopePlan, previous cas.Hash) (*captured, error) {
	root, err := os.OpenRoot(r.workTree)
	if err != nil {
		return nil, fmt.Errorf("turnback: open work tree: %w", err)
	}
	defer root.Close()
	opts := walker.Options{
		SizeLimit:     r.opts.SizeLimit,
		LargeDirFiles: r.opts.LargeDirFiles,
		Progress:      r.opts.Progress,
		Cache:         r.cache,
		Trees:         r.trees,
		Loader:        r.sharedLoader(),
		Index:         r.gitIdx,
		ListIgnored:   listIgnored,
	}
	finder := ref.NewFinder()  // for protectLarge (refs.go)
	finder.Exclude(r.workTree) // a reference inside the work tree protects nothing
	opts.LargeSums = r.largeWant(finder)
	ws := r.watch
	var info *WatchInfo
	if ws != nil {
		info = r.planWatched(ctx, ws, &opts)
	} else if scope != nil {
		scope.apply(&opts)
	}
	var hand *handoff.Handoff
	if scope == nil {
		hand = r.prepareHandoff(&opts)
	} else if r.handoff != nil && !r.readOnly {
		// A scoped capture is never handed over: a daemon started
		// meanwhile makes its own first capture. One an earlier capture
		// left is stale from now on (see prepareHandoff).
		handoff.Remove(r.storeDir)
	}
	if !previous.IsZero() {
		opts.Previous = previous
	} else if opts.Base.IsZero() {
		if opts.Previous, err = r.latest(ctx); err != nil {
			return nil, err
		}
	}
	res, err := walker.Capture(ctx, root, r.store, opts)
	if err != nil {
		return nil, fmt.Errorf("turnback: capture %s: %w", r.workTree, err)
	}
	if err := r.protectLarge(ctx, finder, &res.Stats); err != nil {
		return nil, fmt.Errorf("turnback: capture %s: %w", r.workTree, err)
	}
	if hand != nil {
		r.writeHandoff(ctx, root, hand, opts, res)
	}
	if ws != nil {
		ws.base, ws.sizeLimit, ws.largeDirFiles = res.Root, r.opts.SizeLimit, r.opts.LargeDirFiles
		ws.pending = watch.Changes{}
		info.DirsRead, info.DirsReused = res.Stats.Dirs-res.Stats.DirsReused, res.Stats.DirsReused
	}
	r.last = lastCapture{root: res.Root, files: res.Stats.Files}
	return &captured{Result: res, Watch: info}, nil
}

// closedSnapshot is the snapshot record of the state a command other
// than end closed the open turn at, captured whole as end's is.
func (r *Repo) closedSnapshot(ctx context.Context, snap *captured) (cas.Entry, error) {
	return r.snapshotEntry(ctx, snap.Root, model.KindSnap, snap.Stats.Files, snap.Stats.Bytes, model.SkipInfoOfResult(snap.Result))
}
