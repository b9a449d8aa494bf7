package served

// The operations of a daemon-served view: each checks what this side
// can, sends its request through internal/api and, when the daemon is
// gone, runs on the store this process opens instead (call, conn.go).

import (
	"context"
	"fmt"
	"time"

	"github.com/turnback/turnback/internal/api"
	"github.com/turnback/turnback/internal/model"
)

func (v *View) Snap(ctx context.Context, o model.SnapOptions) (*model.SnapResult, error) {
	if err := v.writable(); err != nil {
		return nil, err
	}
	if err := model.CheckMeta(o.Meta); err != nil {
		return nil, err
	}
	return call(ctx, v, func() (*model.SnapResult, error) {
		req := api.SnapRequest{Message: o.Message, Meta: o.Meta, Agent: v.opts.Agent, TakeNotice: o.TakeNotice}
		return v.c.api.Snap(ctx, v.req(), req)
	}, func(l Backend) (*model.SnapResult, error) { return l.Snap(ctx, o) })
}

func (v *View) End(ctx context.Context) (*model.SnapResult, error) {
	if err := v.writable(); err != nil {
		return nil, err
	}
	return call(ctx, v, func() (*model.SnapResult, error) { return v.c.api.End(ctx, v.req()) },
		func(l Backend) (*model.SnapResult, error) { return l.End(ctx) })
}

// restoreCall runs an undo, redo or restore; dry: a dry run, which a
// Repo opened read-only runs too.
func (v *View) restoreCall(ctx context.Context, dry bool, remote func(api.Call) (*model.RestoreResult, error), local func(Backend) (*model.RestoreResult, error)) (*model.RestoreResult, error) {
	if err := v.writable(); err != nil && !dry {
		return nil, err
	}
	return call(ctx, v, func() (*model.RestoreResult, error) { return remote(v.req()) }, local)
}

func (v *View) Undo(ctx context.Context, n int, o model.UndoOptions) (*model.RestoreResult, error) {
	if n < 1 {
		return nil, fmt.Errorf("turnback: undo: count must be at least 1, got %d", n)
	}
	req := api.UndoRequest{Count: n, Force: o.Force, Paths: o.Paths, DryRun: o.DryRun, Merge: o.Merge}
	if o.Dir != "" && len(o.Paths) > 0 {
		// Paths relative to a directory: made relative to the folder
		// here, as the daemon's Repo would.
		ps, err := v.c.store.TreePaths(o.Dir, o.Paths)
		if err != nil {
			return nil, err
		}
		req.Paths = ps
	}
	return v.restoreCall(ctx, o.DryRun, func(cl api.Call) (*model.RestoreResult, error) { return v.c.api.Undo(ctx, cl, req) },
		func(l Backend) (*model.RestoreResult, error) { return withMoved(l.Undo(ctx, n, o)) })
}

func (v *View) Redo(ctx context.Context, n int, o model.RedoOptions) (*model.RestoreResult, error) {
	if n < 1 {
		return nil, fmt.Errorf("turnback: redo: count must be at least 1, got %d", n)
	}
	req := api.RedoRequest{Count: n, Force: o.Force, DryRun: o.DryRun}
	return withMoved(v.restoreCall(ctx, o.DryRun, func(cl api.Call) (*model.RestoreResult, error) { return v.c.api.Redo(ctx, cl, req) },
		func(l Backend) (*model.RestoreResult, error) { return l.Redo(ctx, n, o) }))
}

func (v *View) Restore(ctx context.Context, id string, o model.RestoreOptions) (*model.RestoreResult, error) {
	req := api.RestoreRequest{ID: id, Session: v.opts.Session, DryRun: o.DryRun}
	return v.restoreCall(ctx, o.DryRun, func(cl api.Call) (*model.RestoreResult, error) { return v.c.api.Restore(ctx, cl, req) },
		func(l Backend) (*model.RestoreResult, error) { return withMoved(l.Restore(ctx, id, o)) })
}

// withMoved is the root's: a result's Moved is never nil.
func withMoved(res *model.RestoreResult, err error) (*model.RestoreResult, error) {
	if res != nil && res.Moved == nil {
		res.Moved = []*model.Turn{}
	}
	return res, err
}

func (v *View) Status(ctx context.Context, o model.StatusOptions) (*model.StatusResult, error) {
	return call(ctx, v, func() (*model.StatusResult, error) { return v.c.api.Status(ctx, v.req(), o.Ignored) },
		func(l Backend) (*model.StatusResult, error) { return l.Status(ctx, o) })
}

func (v *View) Diff(ctx context.Context, a, b string) (*model.DiffResult, error) {
	return call(ctx, v, func() (*model.DiffResult, error) { return v.c.api.Diff(ctx, v.req(), a, b) },
		func(l Backend) (*model.DiffResult, error) { return l.Diff(ctx, a, b) })
}

func (v *View) Turns(ctx context.Context) (turns, redo []*model.Turn, err error) {
	res, err := call(ctx, v, func() (*api.TurnsResult, error) { return v.c.api.Turns(ctx, v.req()) },
		func(l Backend) (*api.TurnsResult, error) {
			t, r, err := l.Turns(ctx)
			return &api.TurnsResult{Turns: t, Redo: r}, err
		})
	if err != nil {
		return nil, nil, err
	}
	return res.Turns, res.Redo, nil
}

func (v *View) Show(ctx context.Context, id string) (*model.SnapshotInfo, error) {
	return call(ctx, v, func() (*model.SnapshotInfo, error) { return v.c.api.Show(ctx, v.req(), id) },
		func(l Backend) (*model.SnapshotInfo, error) { return l.Show(ctx, id) })
}

func (v *View) Sessions(ctx context.Context) ([]model.SessionInfo, error) {
	return call(ctx, v, func() ([]model.SessionInfo, error) { return v.c.api.Sessions(ctx, v.req()) },
		func(l Backend) ([]model.SessionInfo, error) { return l.Sessions(ctx) })
}

// FindSession and LatestSession apply the rules of the root's
// sessions.go to the daemon's list, which names every session record.
func (v *View) FindSession(ctx context.Context, name string) (string, error) {
	list, err := v.Sessions(ctx)
	if err != nil {
		return "", err
	}
	return model.FindSession(list, name)
}

func (v *View) LatestSession(ctx context.Context) (model.SessionInfo, error) {
	list, err := v.Sessions(ctx)
	if err != nil {
		return model.SessionInfo{}, err
	}
	now := time.Now
	if v.opts.Now != nil {
		now = v.opts.Now
	}
	return model.LatestSession(list, now().UTC())
}

func (v *View) Verify(ctx context.Context) (*model.VerifyResult, error) {
	return call(ctx, v, func() (*model.VerifyResult, error) { return v.c.api.Verify(ctx, v.req()) },
		func(l Backend) (*model.VerifyResult, error) { return l.Verify(ctx) })
}

func (v *View) GC(ctx context.Context, o model.GCOptions) (*model.GCResult, error) {
	if err := v.writable(); err != nil {
		return nil, err
	}
	return call(ctx, v, func() (*model.GCResult, error) { return v.c.api.GC(ctx, v.req(), o) },
		func(l Backend) (*model.GCResult, error) { return l.GC(ctx, o) })
}

func (v *View) Info(ctx context.Context) (*model.Info, error) {
	return call(ctx, v, func() (*model.Info, error) { return v.c.api.Info(ctx, v.req()) },
		func(l Backend) (*model.Info, error) { return l.Info(ctx) })
}

func (v *View) AllTurns(ctx context.Context) ([]model.SessionTurns, error) {
	return call(ctx, v, func() ([]model.SessionTurns, error) { return v.c.api.AllTurns(ctx, v.req()) },
		func(l Backend) ([]model.SessionTurns, error) { return l.AllTurns(ctx) })
}

func (v *View) TurnChanges(ctx context.Context, n int, content bool) (*model.TurnChanges, error) {
	return call(ctx, v, func() (*model.TurnChanges, error) { return v.c.api.TurnChanges(ctx, v.req(), n, content) },
		func(l Backend) (*model.TurnChanges, error) { return l.TurnChanges(ctx, n, content) })
}

func (v *View) UnprotectedChanges(ctx context.Context, turns []*model.Turn) (map[int][]string, error) {
	return call(ctx, v, func() (map[int][]string, error) { return v.c.api.Unprotected(ctx, v.req(), turns) },
		func(l Backend) (map[int][]string, error) { return l.UnprotectedChanges(ctx, turns) })
}

func (v *View) Recover(ctx context.Context, rollback bool) (*model.RecoverResult, error) {
	if err := v.writable(); err != nil {
		return nil, err
	}
	return call(ctx, v, func() (*model.RecoverResult, error) { return v.c.api.Recover(ctx, v.req(), rollback) },
		func(l Backend) (*model.RecoverResult, error) { return l.Recover(ctx, rollback) })
}

func (v *View) CheckpointList(ctx context.Context) ([]model.Checkpoint, error) {
	return call(ctx, v, func() ([]model.Checkpoint, error) { return v.c.api.Checkpoints(ctx, v.req()) },
		func(l Backend) ([]model.Checkpoint, error) { return l.CheckpointList(ctx) })
}

// Op runs the operation name (internal/daemonop) in the daemon, or
// local on the local store once the daemon is gone.
func (v *View) Op(ctx context.Context, name string, body, out any, local func(Backend) error) error {
	_, err := call(ctx, v, func() (struct{}, error) {
		return struct{}{}, v.c.api.Op(ctx, api.Call{Session: v.opts.Session}, name, body, out)
	}, func(l Backend) (struct{}, error) { return struct{}{}, local(l) })
	return err
}
