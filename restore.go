package turnback

// The restore step that Undo, Redo and Restore share (execute: plan,
// checkpoint, verify, stage, journal, apply, commit the records), their
// result types, and Restore.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/internal/pathstate"
	"github.com/turnback/turnback/internal/storedir"
	"github.com/turnback/turnback/internal/testhook"
	"github.com/turnback/turnback/internal/treepath"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
	"github.com/turnback/turnback/walker"
)

// commitMeta commits a restore journal's batch data, its result
// captured again first when the batch asks for it (settle.go); settled,
// if not nil, then receives the new result.
func (r *Repo) commitMeta(ctx context.Context, data []byte, settled *cas.Hash) error {
	if len(data) == 0 {
		return nil
	}
	var m model.MetaBatch
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("%w: restore journal metadata: %v", cas.ErrCorrupt, err)
	}
	if m.Recapture {
		if err := r.settleSafely(ctx, &m, settled); err != nil {
			return err
		}
	}
	writes, later := model.LocalizeLater(m.Writes)
	// The snapshot records keep what earlier captures of their trees
	// skipped: the amended checkpoint's too (model.AmendBatch).
	for i, e := range writes {
		if !strings.HasPrefix(string(e.Key), model.PrefixSnap) {
			continue
		}
		var err error
		if writes[i], _, err = r.mergeStored(ctx, e); err != nil {
			return err
		}
	}
	if err := r.commit(ctx, writes, m.Deletes); err != nil {
		return err
	}
	// The folder is as the restore left it (pull_owners.go). Best
	// effort: the command that made the batch tries again and says why.
	for s, h := range later {
		_ = r.localizeLast(ctx, s, h)
	}
	return nil
}

// commitSize is the bytes of keys and values a restore's commit writes:
// its records, and room for those its displaced files add (Amend).
func commitSize(writes []cas.Entry, deletes [][]byte) int64 {
	n := int64(16 << 10)
	for _, e := range writes {
		n += int64(len(e.Key) + len(e.Value))
	}
	for _, k := range deletes {
		n += int64(len(k))
	}
	return n
}

// recoverRestore finishes or rolls back a restore a crash interrupted.
func (r *Repo) recoverRestore(ctx context.Context) error {
	if !storedir.RestorePending(r.storeDir) {
		return nil
	}
	// As execute: the records are committed after the files changed.
	if err := r.backend.Upgrade(); err != nil {
		return err
	}
	root, err := os.OpenRoot(r.workTree)
	if err != nil {
		return fmt.Errorf("turnback: open work tree: %w", err)
	}
	defer root.Close()
	opts := r.restoreOptions(nil)
	opts.Hook, opts.Progress = nil, nil
	found, err := restore.Recover(ctx, root, opts)
	if found && err == nil {
		r.recovered = true
	}
	return unfinished(err)
}

// The restore hook (Repo.hook) is for crash and fault injection in
// tests: export_test.go sets it for this package's tests, and
// internal/testhook for the CLI's. On a Repo a daemon serves it is
// called with the steps of the daemon's restore as they are reported,
// and its error changes nothing.
func init() {
	testhook.SetRestoreHook = func(repo any, h func(step string) error) { repo.(*Repo).hook = h }
}

// execute checkpoints the current state, plans and applies actions, and
// commits meta(checkpoint, result) with them.
//
// Blocked actions are reported as not restorable, except the parent
// directories that actionsFor added (in res.parents): the path they were
// added for says why it cannot be restored.
func (r *Repo) execute(ctx context.Context, op string, current, goal cas.Hash, actions []restore.Action, parents map[string]bool, force bool, meta func(cp, res cas.Hash) ([]cas.Entry, [][]byte, error)) (*RestoreResult, error) {
	return r.executeIn(ctx, op, nil, current, goal, actions, parents, force, meta)
}

// executeIn is execute; a scope (an undo's or redo's: the paths it may
// write) is recorded with the checkpoint and the result as the paths
// they vouch for (partial.go), nil for a state vouched for whole.
func (r *Repo) executeIn(ctx context.Context, op string, scope *vouch, current, goal cas.Hash, actions []restore.Action, parents map[string]bool, force bool, meta func(cp, res cas.Hash) ([]cas.Entry, [][]byte, error)) (*RestoreResult, error) {
	out := &RestoreResult{}
	if err := r.noteUmask(ctx); err != nil {
		return nil, err
	}
	orig, notes, byRef, err := r.refActions(ctx, actions)
	if err != nil {
		return nil, err
	}
	loader := r.loader()
	w := r.store.NewWriter()
	defer w.Cancel()
	edits := map[string]*manifest.Entry{}
	for i := range actions {
		a := &actions[i]
		if a.Old != nil && a.Old.Kind == manifest.KindFile && a.Old.Uncaptured && !byRef[a.Path] {
			full, err := r.storeFile(ctx, a.Path, a.Old)
			if err != nil {
				return nil, err
			}
			a.Old = full
			edits[a.Path] = full
		}
	}
	cp := current
	if len(edits) > 0 {
		var err error
		if cp, err = manifest.Edit(ctx, loader, w, current, edits); err != nil {
			return nil, err
		}
		// The result edit below reads the checkpoint's trees back.
		if err := w.Flush(); err != nil {
			return nil, err
		}
		w = r.store.NewWriter()
		defer w.Cancel()
	}
	root, err := os.OpenRoot(r.workTree)
	if err != nil {
		return nil, fmt.Errorf("turnback: open work tree: %w", err)
	}
	defer root.Close()
	plan, err := restore.NewPlan(ctx, root, actions)
	if err != nil {
		return nil, err
	}
	changes := map[string]*manifest.Entry{}
	for _, a := range plan.Actions {
		e := a.New
		if o, ok := orig[a.Path]; ok {
			e = o // restored from a reference: still not stored
		}
		if e != nil && restore.DroppedSpecial(a.New) != 0 {
			// Recorded as written: without the special bits the
			// restore leaves off (no owner, or one unknown here).
			c := *e
			c.Mode &^= restore.DroppedSpecial(a.New)
			e = &c
		}
		changes[a.Path] = e
	}
	result, recapture := cp, rewritesRules(plan.Actions)
	if !recapture {
		if recapture, err = r.makesIgnored(ctx, loader, current, plan.Actions); err != nil {
			return nil, err
		}
	}
	if len(changes) > 0 {
		if result, err = manifest.Edit(ctx, loader, w, cp, changes); errors.Is(err, manifest.ErrNoParent) {
			// A path made in a directory the checkpoint skipped.
			result, err = r.editSkippedParents(ctx, loader, w, root, cp, changes)
			recapture = true
		}
		if err != nil {
			return nil, err
		}
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	writes, deletes, err := meta(cp, result)
	if err != nil {
		return nil, err
	}
	cpRec, err := r.checkpointEntry(ctx, cp, op, plan.Actions)
	if err != nil {
		return nil, err
	}
	// The checkpoint and the result skip what the state now skips: the
	// restore leaves every ignored path as it is.
	skip, err := r.skipInfoOfRoot(ctx, current)
	if err != nil {
		return nil, err
	}
	cpSnap, err := r.stateEntry(ctx, cp, model.KindCheckpoint, skip, scope)
	if err != nil {
		return nil, err
	}
	resSkip, resTracked, err := r.resultSkips(ctx, loader, result, goal, skip)
	if err != nil {
		return nil, err
	}
	resSnap, err := r.stateEntry(ctx, result, model.KindResult, resSkip, scope)
	if err != nil {
		return nil, err
	}
	writes = append(writes, cpRec, cpSnap, resSnap)
	latest, unmemo := r.latestAfterRestore(result, current, resTracked, plan.Actions)
	writes, deletes = append(writes, latest...), append(deletes, unmemo...)
	data, err := json.Marshal(model.MetaBatch{Writes: writes, Deletes: deletes, Checkpoint: cp.String(), Result: result.String(), Scope: scope.list(),
		Recapture: recapture})
	if err != nil {
		return nil, fmt.Errorf("turnback: encode metadata: %w", err)
	}
	// The records are committed after the files changed: what they
	// name is made durable now, and the space they take reserved (or
	// the database opened for writing).
	if err := r.backend.Reserve(commitSize(writes, deletes)); err != nil {
		return nil, err
	}
	defer r.backend.Release()
	amended, settled := cp, result
	opts := r.restoreOptions(&amended)
	opts.Meta, opts.Force = data, force
	opts.Commit = func(ctx context.Context, meta []byte) error { return r.commitMeta(ctx, meta, &settled) }
	// While Apply stages the files, the checkpoint's content is checked
	// (verifyUse); Apply waits for it before the commit point (Ready),
	// and a failure changes nothing.
	ready := make(chan error, 1)
	go func() { ready <- r.verifyUse(ctx, cp, plan.Actions) }()
	var readyErr error
	waited := false
	wait := func() error {
		if !waited {
			readyErr, waited = <-ready, true
		}
		return readyErr
	}
	opts.Ready = wait
	res, err := restore.Apply(ctx, root, plan, opts)
	applied := time.Now()
	if rerr := wait(); rerr != nil {
		// Apply changed nothing and returned it; its clean-up of the
		// staged files is best effort: the next operation finishes it.
		r.recover = true
		if ctx.Err() != nil && errors.Is(rerr, ctx.Err()) {
			return nil, ctx.Err() // cancelled, not a damaged store
		}
		return nil, rerr
	}
	if cerr := changedConflict(err, out); cerr != nil {
		return out, cerr
	}
	if err != nil {
		// A journal may be left: the next operation of this process
		// finishes or rolls it back before anything else.
		r.recover = true
		return nil, unfinished(err)
	}
	var written []walker.Written
	for _, wf := range res.Written {
		written = append(written, walker.Written{Path: wf.Path, Hash: wf.Hash, Info: wf.Info})
	}
	// The stat cache is a hint: failing to update it costs a re-read.
	// It is taught at the end of the operation (in the daemon, after
	// the answer).
	r.later(func() { _ = r.cache.Record(context.WithoutCancel(ctx), written, applied) })
	out.Checkpoint, out.Result = amended, settled
	out.Restored, out.Deleted, out.Created = res.Restored, res.Deleted, res.Created
	out.Conflicts = displacedNotes(res.Displaced)
	for _, s := range plan.Blocked {
		if parents[s.Path] {
			continue
		}
		reason := s.Reason
		if why, ok := notes[s.Path]; ok {
			reason = why
			model.AddNoContent(out, s.Path)
		}
		out.NotRestorable = append(out.NotRestorable, PathNote{Path: s.Path, Reason: reason})
	}
	for _, s := range append(plan.Kept, res.Kept...) {
		out.NotRestorable = append(out.NotRestorable, PathNote{Path: s.Path, Reason: model.KeptReason(s.Reason), Kept: !strings.HasPrefix(s.Reason, "changed ")})
	}
	return out, nil
}

// Restore makes the whole captured scope exactly snapshot id: paths
// absent from it are deleted (ignored paths, and uncaptured ones, stay).
// It records a checkpoint of the state it replaced and changes no
// session's turns. With o.DryRun nothing is changed and the result's
// DryRun says what would be.
func (r *Repo) Restore(ctx context.Context, id string, o RestoreOptions) (*RestoreResult, error) {
	return withMoved(r.be.Restore(ctx, id, o))
}

// withMoved makes a result's Moved empty rather than nil (JSON: [], not
// null).
func withMoved(res *RestoreResult, err error) (*RestoreResult, error) {
	if res != nil && res.Moved == nil {
		res.Moved = []*Turn{}
	}
	return res, err
}

func (r *Repo) restore(ctx context.Context, id string, o RestoreOptions) (*RestoreResult, error) {
	h, err := r.lockResolve(ctx, id)
	if err != nil {
		return nil, err
	}
	defer r.unlock()
	defer r.shareTrees()()
	snap, err := r.capture(ctx)
	if err != nil {
		return nil, err
	}
	// A state another machine captured keeps each path's owner here,
	// as pull --apply does (pull_owners.go).
	foreign, err := r.foreignState(ctx, h)
	if err != nil {
		return nil, err
	}
	var actions []restore.Action
	loader := manifest.NewCachingLoader(r.loader())
	err = manifest.Diff(ctx, loader, snap.Root, h, func(c manifest.Change) error {
		n := c.New
		if foreign {
			if n = pathstate.ForeignTarget(n); c.Old != nil && n != nil && n.Equal(pathstate.ForeignOwner(c.Old)) {
				return nil // only the owner differs
			}
		}
		actions = append(actions, restore.Action{Path: c.Path, Old: c.Old, New: n})
		return nil
	})
	if err != nil {
		return nil, err
	}
	// An undo's or redo's state puts back the paths it holds alone; a
	// turn's state (@N, @N^) is a whole capture of the folder.
	var part *PartialState
	if _, isRef, _ := ParseTurnRef(id); !isRef {
		if part, err = r.partialOf(ctx, h); err != nil {
			return nil, err
		}
	}
	if part != nil {
		actions = treepath.KeepVouched(actions, part.Paths)
	}
	actions, ignored, err := r.dropIgnored(ctx, loader, actions, snap.Root, h, nil)
	if err != nil {
		return nil, err
	}
	if o.DryRun {
		p, _, _, err := r.preview(ctx, actions, &RestoreResult{}, ignored, true)
		if err != nil {
			return nil, err
		}
		res, err := model.DryResult(p)
		if res != nil {
			res.Partial = part
		}
		return res, err
	}
	out, err := r.execute(ctx, "restore "+h.Short(), snap.Root, h, actions, nil, true, func(cp, result cas.Hash) ([]cas.Entry, [][]byte, error) {
		del, err := r.pulledDeletes(ctx) // the folder is no longer where a pull left it
		if foreign {
			return []cas.Entry{model.LocalizeEntry(r.session, h)}, del, err
		}
		return nil, del, err
	})
	if err != nil {
		return nil, err
	}
	out.NotRestorable = append(out.NotRestorable, ignored...)
	out.Partial = part
	if foreign {
		// The session's last state, if it is h (a clone), takes the
		// folder's owners: status then shows no owner change.
		if err := r.localizeLast(ctx, r.session, h); err != nil {
			return out, fmt.Errorf("turnback: restore done; recording the folder's owners in state %s: %w", h.Short(), err)
		}
	}
	return out, nil
}
