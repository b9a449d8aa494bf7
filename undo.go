package turnback

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
	"github.com/turnback/turnback/walker"
)

// ErrConflict: paths the command would change hold edits made outside
// the turns; nothing was changed.
var ErrConflict = errors.New("turnback: conflict")

// PathNote is a path with what happened to it.
type PathNote struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Kept: left as it is on purpose (a directory that still holds
	// something, a path ignored in either state), so not a reason to
	// call the command incomplete.
	Kept bool `json:"kept,omitempty"`
}

// RestoreResult reports undo, redo and restore.
type RestoreResult struct {
	Turns         int        // turns undone or redone
	Restored      []string   // rewritten
	Deleted       []string   // removed
	Created       []string   // brought back
	Conflicts     []PathNote // edits in the way (nothing changed unless forced)
	NotRestorable []PathNote // left as they are
	Checkpoint    cas.Hash   // the state the command replaced
	Result        cas.Hash   // the state it left
	// Nothing: there was nothing to undo or redo.
	Nothing bool

	parents map[string]bool // directories recreated only for a path below
	// noContent: paths not restorable because their content is neither
	// stored nor held by a reference (refsource.go).
	noContent map[string]bool
}

// ConflictError is returned (wrapping ErrConflict) when undo or redo
// would overwrite edits made outside the turns. Result lists them.
type ConflictError struct{ Result *RestoreResult }

func (e *ConflictError) Error() string {
	n := len(e.Result.Conflicts)
	what := "paths were"
	if n == 1 {
		what = "path was"
	}
	return fmt.Sprintf("turnback: conflict: %d %s changed outside the turns; nothing was changed for them (use --force to proceed: the edits stay recoverable)", n, what)
}

// Unwrap makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// undoGroup is one undo on a session's redo stack.
type undoGroup struct {
	Turns      []int  `json:"turns"`      // undone turns still to redo, oldest first
	Checkpoint string `json:"checkpoint"` // the state the undo replaced
	Expected   string `json:"expected"`   // the state the last undo or redo left
}

// metaBatch is the metadata a restore commits together with its files.
type metaBatch struct {
	Writes  []cas.Entry `json:"writes"`
	Deletes [][]byte    `json:"deletes"`
	// The checkpoint the writes refer to, and the result (see amendMeta).
	Checkpoint string `json:"checkpoint,omitempty"`
	Result     string `json:"result,omitempty"`
}

func (r *Repo) commitMeta(ctx context.Context, data []byte) error {
	if len(data) == 0 {
		return nil
	}
	var m metaBatch
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("%w: restore journal metadata: %v", cas.ErrCorrupt, err)
	}
	return r.commit(ctx, m.Writes, m.Deletes)
}

// recoverRestore finishes or rolls back a restore a crash interrupted.
func (r *Repo) recoverRestore(ctx context.Context) error {
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

// SetRestoreHook sets a function every restore this Repo runs calls
// before each named step (see restore.Options.Hook). It exists for crash
// and fault injection in tests; an error from it fails the step.
func (r *Repo) SetRestoreHook(h func(step string) error) { r.hook = h }

// execute checkpoints the current state, plans and applies actions, and
// commits meta(checkpoint, result) with them.
//
// Blocked actions are reported as not restorable, except the parent
// directories that actionsFor added (in res.parents): the path they were
// added for says why it cannot be restored.
func (r *Repo) execute(ctx context.Context, current cas.Hash, actions []restore.Action, parents map[string]bool, force bool, meta func(cp, res cas.Hash) ([]cas.Entry, [][]byte)) (*RestoreResult, error) {
	out := &RestoreResult{}
	orig, notes, byRef, err := r.refActions(ctx, actions)
	if err != nil {
		return nil, err
	}
	loader := manifest.NewStoreLoader(r.store)
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
		changes[a.Path] = a.New
		if e, ok := orig[a.Path]; ok {
			changes[a.Path] = e // restored from a reference: still not stored
		}
	}
	result := cp
	if len(changes) > 0 {
		if result, err = manifest.Edit(ctx, loader, w, cp, changes); err != nil {
			return nil, err
		}
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	writes, deletes := meta(cp, result)
	cpRec, err := r.checkpointEntry(ctx, cp)
	if err != nil {
		return nil, err
	}
	writes = append(writes, cpRec, snapshotEntry(cp, kindCheckpoint, 0, 0), snapshotEntry(result, kindResult, 0, 0),
		cas.Entry{Key: []byte(keyLatest), Value: []byte(result.String())})
	data, err := json.Marshal(metaBatch{Writes: writes, Deletes: deletes, Checkpoint: cp.String(), Result: result.String()})
	if err != nil {
		return nil, fmt.Errorf("turnback: encode metadata: %w", err)
	}
	if err := r.verifyUse(ctx, cp, plan.Actions); err != nil {
		return nil, err
	}
	amended := cp
	opts := r.restoreOptions(&amended)
	opts.Meta, opts.Force = data, force
	res, err := restore.Apply(ctx, root, plan, opts)
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
	_ = r.cache.Record(ctx, written)
	out.Checkpoint, out.Result = amended, result
	out.Restored, out.Deleted, out.Created = res.Restored, res.Deleted, res.Created
	out.Conflicts = displacedNotes(res.Displaced)
	for _, s := range plan.Blocked {
		if parents[s.Path] {
			continue
		}
		reason := s.Reason
		if why, ok := notes[s.Path]; ok {
			reason = why
			out.noContent = addPath(out.noContent, s.Path)
		}
		out.NotRestorable = append(out.NotRestorable, PathNote{Path: s.Path, Reason: reason})
	}
	for _, s := range append(plan.Kept, res.Kept...) {
		out.NotRestorable = append(out.NotRestorable, PathNote{Path: s.Path, Reason: keptReason(s.Reason), Kept: !strings.HasPrefix(s.Reason, "changed ")})
	}
	return out, nil
}

// Undo closes the open turn at the current state and reverts the last n
// turns of the session: every path they changed goes back to its content
// before the earliest of them. Paths changed outside the turns since make
// it return a *ConflictError and change nothing, unless force is set.
func (r *Repo) Undo(ctx context.Context, n int, force bool) (*RestoreResult, error) {
	if n < 1 {
		return nil, fmt.Errorf("turnback: undo: count must be at least 1, got %d", n)
	}
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	snap, err := r.capture(ctx)
	if err != nil {
		return nil, err
	}
	now := snap.Root
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return nil, err
	}
	closed, _, writes, deletes, err := r.closeOpen(ctx, sess, now, "undo")
	if err != nil {
		return nil, err
	}
	if len(sess.Turns) == 0 {
		if err := r.commit(ctx, append(writes, sessionEntry(sess)), deletes); err != nil {
			return nil, err
		}
		return &RestoreResult{Nothing: true}, nil
	}
	n = min(n, len(sess.Turns))
	nums := sess.Turns[len(sess.Turns)-n:]
	turns := make([]*Turn, 0, n)
	for _, num := range nums {
		if closed != nil && closed.N == num {
			turns = append(turns, closed)
			continue
		}
		t, err := r.loadTurn(ctx, r.session, num)
		if err != nil {
			return nil, err
		}
		turns = append(turns, t)
	}
	loader := manifest.NewCachingLoader(manifest.NewStoreLoader(r.store))
	left := map[string]*manifest.Entry{} // what the newest turn touching a path left there
	// perTurn: the paths each turn changed.
	perTurn := make([][]string, len(turns))
	for i, t := range turns {
		err := manifest.Diff(ctx, loader, t.Before, t.After, func(c manifest.Change) error {
			left[c.Path] = c.New
			perTurn[i] = append(perTurn[i], c.Path)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	base := turns[0].Before
	res := &RestoreResult{}
	actions, err := r.actionsFor(ctx, loader, left, now, func(p string) (*manifest.Entry, error) {
		return manifest.Find(ctx, loader, base, p)
	}, res, force)
	if err != nil {
		return nil, err
	}
	actions, ignored, err := r.dropIgnored(ctx, loader, actions, now, base, res)
	if err != nil {
		return nil, err
	}
	if len(res.Conflicts) > 0 && !force {
		return res, &ConflictError{Result: res}
	}
	group := undoGroup{Turns: append([]int(nil), nums...)}
	sess.Turns = sess.Turns[:len(sess.Turns)-n]
	out, err := r.execute(ctx, now, actions, res.parents, force, func(cp, result cas.Hash) ([]cas.Entry, [][]byte) {
		group.Checkpoint, group.Expected = cp.String(), result.String()
		sess.Redo = append(sess.Redo, group)
		sess.Last = result.String()
		return append(writes, sessionEntry(sess)), deletes
	})
	if err != nil {
		return conflictResult(res, err)
	}
	out.Turns, out.Conflicts = n, overwritten(out, res.Conflicts)
	out.NotRestorable = append(out.NotRestorable, ignored...)
	if err := r.keepStuckTurns(ctx, out, nums, perTurn); err != nil {
		return nil, err
	}
	return out, nil
}

// actionsFor builds the actions that set every path in left to its
// target, checking each against what was left there for conflicts.
func (r *Repo) actionsFor(ctx context.Context, loader manifest.Loader, left map[string]*manifest.Entry, now cas.Hash,
	target func(string) (*manifest.Entry, error), res *RestoreResult, force bool) ([]restore.Action, error) {
	paths := make([]string, 0, len(left))
	for p := range left {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var actions []restore.Action
	planned := map[string]bool{}
	for _, p := range paths {
		cur, err := manifest.Find(ctx, loader, now, p)
		if err != nil {
			return nil, err
		}
		want, err := target(p)
		if err != nil {
			return nil, err
		}
		if sameState(cur, want) {
			continue // nothing to change here, so nothing to conflict with
		}
		why, err := r.conflictReason(ctx, p, cur, left[p])
		if err != nil {
			return nil, err
		}
		if why != "" {
			res.Conflicts = append(res.Conflicts, PathNote{Path: p, Reason: why})
		}
		actions = append(actions, restore.Action{Path: p, Old: cur, New: want})
		planned[p] = true
	}
	// A path coming back needs its parent directories: ones the user
	// removed since the turns are recreated as the target state has them.
	var parents []restore.Action
	for _, a := range actions {
		if a.Old != nil || a.New == nil {
			continue
		}
		q := ""
		names := strings.Split(a.Path, "/")
		for _, name := range names[:len(names)-1] {
			q = joinPath(q, name)
			if planned[q] {
				continue
			}
			cur, err := manifest.Find(ctx, loader, now, q)
			if err != nil {
				return nil, err
			}
			if cur != nil {
				continue // present (NewPlan blocks what is not a directory)
			}
			want, err := target(q)
			if err != nil {
				return nil, err
			}
			if want == nil || want.Kind != manifest.KindDir {
				break
			}
			parents = append(parents, restore.Action{Path: q, New: want})
			planned[q] = true
			if res.parents == nil {
				res.parents = map[string]bool{}
			}
			res.parents[q] = true
		}
	}
	return append(actions, parents...), nil
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
