package turnback

// The methods of a daemon-served Repo: each checks what this side can,
// sends its request through internal/api and, when the daemon is gone,
// runs on the store this process opens instead (call, api_client.go).

import (
	"context"
	"fmt"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/api"
)

func (rm *remoteRepo) snap(ctx context.Context, o SnapOptions) (*SnapResult, error) {
	if err := rm.writable(); err != nil {
		return nil, err
	}
	if err := CheckMeta(o.Meta); err != nil {
		return nil, err
	}
	return call(ctx, rm, func() (*SnapResult, error) {
		req := api.SnapRequest{Message: o.Message, Meta: o.Meta, Agent: rm.opts.Agent, TakeNotice: o.TakeNotice}
		return rm.c.api.Snap(ctx, rm.req(), req)
	}, func(l *Repo) (*SnapResult, error) { return l.SnapWith(ctx, o) })
}

func (rm *remoteRepo) end(ctx context.Context) (*SnapResult, error) {
	if err := rm.writable(); err != nil {
		return nil, err
	}
	return call(ctx, rm, func() (*SnapResult, error) { return rm.c.api.End(ctx, rm.req()) },
		func(l *Repo) (*SnapResult, error) { return l.End(ctx) })
}

// restoreCall runs an undo, redo or restore; dry: a dry run, which a
// Repo opened read-only runs too.
func (rm *remoteRepo) restoreCall(ctx context.Context, dry bool, remote func(api.Call) (*RestoreResult, error), local func(*Repo) (*RestoreResult, error)) (*RestoreResult, error) {
	if err := rm.writable(); err != nil && !dry {
		return nil, err
	}
	return call(ctx, rm, func() (*RestoreResult, error) { return remote(rm.req()) }, local)
}

func (rm *remoteRepo) undo(ctx context.Context, n int, o UndoOptions) (*RestoreResult, error) {
	if n < 1 {
		return nil, fmt.Errorf("turnback: undo: count must be at least 1, got %d", n)
	}
	req := api.UndoRequest{Count: n, Force: o.Force, Paths: o.Paths, DryRun: o.DryRun, Merge: o.Merge}
	if o.Dir != "" && len(o.Paths) > 0 {
		// Paths relative to a directory: made relative to the folder
		// here, as the daemon's Repo would.
		ps, err := (&Repo{repoCore: &repoCore{workTree: rm.c.workTree}}).TreePaths(o.Dir, o.Paths)
		if err != nil {
			return nil, err
		}
		req.Paths = ps
	}
	return rm.restoreCall(ctx, o.DryRun, func(cl api.Call) (*RestoreResult, error) { return rm.c.api.Undo(ctx, cl, req) },
		func(l *Repo) (*RestoreResult, error) { return l.Undo(ctx, n, o) })
}

func (rm *remoteRepo) redo(ctx context.Context, n int, o RedoOptions) (*RestoreResult, error) {
	if n < 1 {
		return nil, fmt.Errorf("turnback: redo: count must be at least 1, got %d", n)
	}
	req := api.RedoRequest{Count: n, Force: o.Force, DryRun: o.DryRun}
	return withMoved(rm.restoreCall(ctx, o.DryRun, func(cl api.Call) (*RestoreResult, error) { return rm.c.api.Redo(ctx, cl, req) },
		func(l *Repo) (*RestoreResult, error) { return l.Redo(ctx, n, o) }))
}

func (rm *remoteRepo) restore(ctx context.Context, id string, o RestoreOptions) (*RestoreResult, error) {
	req := api.RestoreRequest{ID: id, Session: rm.opts.Session, DryRun: o.DryRun}
	return rm.restoreCall(ctx, o.DryRun, func(cl api.Call) (*RestoreResult, error) { return rm.c.api.Restore(ctx, cl, req) },
		func(l *Repo) (*RestoreResult, error) { return l.Restore(ctx, id, o) })
}

func (rm *remoteRepo) status(ctx context.Context, o StatusOptions) (*StatusResult, error) {
	return call(ctx, rm, func() (*StatusResult, error) { return rm.c.api.Status(ctx, rm.req(), o.Ignored) },
		func(l *Repo) (*StatusResult, error) { return l.StatusWith(ctx, o) })
}

func (rm *remoteRepo) diff(ctx context.Context, a, b string) (from, to cas.Hash, diffs []FileDiff, err error) {
	res, err := call(ctx, rm, func() (*api.DiffResult, error) { return rm.c.api.Diff(ctx, rm.req(), a, b) },
		func(l *Repo) (*api.DiffResult, error) {
			f, t, ds, err := l.Diff(ctx, a, b)
			return &api.DiffResult{From: f, To: t, Diffs: ds}, err
		})
	if err != nil {
		return from, to, nil, err
	}
	return res.From, res.To, res.Diffs, nil
}

func (rm *remoteRepo) turns(ctx context.Context) (turns, redo []*Turn, err error) {
	res, err := call(ctx, rm, func() (*api.TurnsResult, error) { return rm.c.api.Turns(ctx, rm.req()) },
		func(l *Repo) (*api.TurnsResult, error) {
			t, r, err := l.Turns(ctx)
			return &api.TurnsResult{Turns: t, Redo: r}, err
		})
	if err != nil {
		return nil, nil, err
	}
	return res.Turns, res.Redo, nil
}

func (rm *remoteRepo) show(ctx context.Context, id string) (*SnapshotInfo, error) {
	return call(ctx, rm, func() (*SnapshotInfo, error) { return rm.c.api.Show(ctx, rm.req(), id) },
		func(l *Repo) (*SnapshotInfo, error) { return l.Show(ctx, id) })
}

func (rm *remoteRepo) sessions(ctx context.Context) ([]SessionInfo, error) {
	return call(ctx, rm, func() ([]SessionInfo, error) { return rm.c.api.Sessions(ctx, rm.req()) },
		func(l *Repo) ([]SessionInfo, error) { return l.Sessions(ctx) })
}

// findSession and latestSession apply the rules of sessions.go to the
// daemon's list, which names every session record.
func (rm *remoteRepo) findSession(ctx context.Context, name string) (string, error) {
	list, err := rm.sessions(ctx)
	if err != nil {
		return "", err
	}
	return findSession(list, name)
}

func (rm *remoteRepo) latestSession(ctx context.Context) (SessionInfo, error) {
	list, err := rm.sessions(ctx)
	if err != nil {
		return SessionInfo{}, err
	}
	return latestSession(list, (&Repo{opts: rm.opts}).now())
}

func (rm *remoteRepo) verify(ctx context.Context) (*VerifyResult, error) {
	return call(ctx, rm, func() (*VerifyResult, error) { return rm.c.api.Verify(ctx, rm.req()) },
		func(l *Repo) (*VerifyResult, error) { return l.Verify(ctx) })
}

func (rm *remoteRepo) gc(ctx context.Context, o GCOptions) (*GCResult, error) {
	if err := rm.writable(); err != nil {
		return nil, err
	}
	return call(ctx, rm, func() (*GCResult, error) { return rm.c.api.GC(ctx, rm.req(), o) },
		func(l *Repo) (*GCResult, error) { return l.GC(ctx, o) })
}

func (rm *remoteRepo) info(ctx context.Context) (*Info, error) {
	return call(ctx, rm, func() (*Info, error) { return rm.c.api.Info(ctx, rm.req()) },
		func(l *Repo) (*Info, error) { return l.Info(ctx) })
}

func (rm *remoteRepo) allTurns(ctx context.Context) ([]SessionTurns, error) {
	return call(ctx, rm, func() ([]SessionTurns, error) { return rm.c.api.AllTurns(ctx, rm.req()) },
		func(l *Repo) ([]SessionTurns, error) { return l.AllTurns(ctx) })
}

func (rm *remoteRepo) turnChanges(ctx context.Context, n int, content bool) (*TurnChanges, error) {
	return call(ctx, rm, func() (*TurnChanges, error) { return rm.c.api.TurnChanges(ctx, rm.req(), n, content) },
		func(l *Repo) (*TurnChanges, error) {
			if content {
				return l.DiffTurn(ctx, n)
			}
			return l.ShowTurn(ctx, n)
		})
}

func (rm *remoteRepo) unprotectedChanges(ctx context.Context, turns []*Turn) (map[int][]string, error) {
	return call(ctx, rm, func() (map[int][]string, error) { return rm.c.api.Unprotected(ctx, rm.req(), turns) },
		func(l *Repo) (map[int][]string, error) { return l.UnprotectedChanges(ctx, turns) })
}

func (rm *remoteRepo) recover(ctx context.Context, rollback bool) (*RecoverResult, error) {
	if err := rm.writable(); err != nil {
		return nil, err
	}
	return call(ctx, rm, func() (*RecoverResult, error) { return rm.c.api.Recover(ctx, rm.req(), rollback) },
		func(l *Repo) (*RecoverResult, error) { return l.Recover(ctx, rollback) })
}

func (rm *remoteRepo) checkpointList(ctx context.Context) ([]Checkpoint, error) {
	return call(ctx, rm, func() ([]Checkpoint, error) { return rm.c.api.Checkpoints(ctx, rm.req()) },
		func(l *Repo) ([]Checkpoint, error) { return l.Checkpoints(ctx) })
}
