package turnback

// A Repo's methods run on one of two backends, chosen once by Open:
// localRepo when this process holds the store, remoteRepo
// (api_client.go) when a watch daemon holds it and runs them. Each
// exported method of Repo that a daemon serves is one call of its
// backend; the others need the store here (lock.go refuses them on a
// served Repo).

import (
	"context"

	"github.com/turnback/turnback/cas"
)

// backend runs the operations of one Repo (one view: a session).
type backend interface {
	snap(ctx context.Context, o SnapOptions) (*SnapResult, error)
	end(ctx context.Context) (*SnapResult, error)
	undo(ctx context.Context, n int, o UndoOptions) (*RestoreResult, error)
	redo(ctx context.Context, n int, o RedoOptions) (*RestoreResult, error)
	restore(ctx context.Context, id string, o RestoreOptions) (*RestoreResult, error)
	status(ctx context.Context, o StatusOptions) (*StatusResult, error)
	show(ctx context.Context, id string) (*SnapshotInfo, error)
	diff(ctx context.Context, a, b string) (from, to cas.Hash, diffs []FileDiff, err error)
	turns(ctx context.Context) (turns, redo []*Turn, err error)
	sessions(ctx context.Context) ([]SessionInfo, error)
	findSession(ctx context.Context, name string) (string, error)
	latestSession(ctx context.Context) (SessionInfo, error)
	verify(ctx context.Context) (*VerifyResult, error)
	gc(ctx context.Context, o GCOptions) (*GCResult, error)
	info(ctx context.Context) (*Info, error)
	allTurns(ctx context.Context) ([]SessionTurns, error)
	unprotectedChanges(ctx context.Context, turns []*Turn) (map[int][]string, error)
	turnChanges(ctx context.Context, n int, content bool) (*TurnChanges, error)
	recover(ctx context.Context, rollback bool) (*RecoverResult, error)
	checkpointList(ctx context.Context) ([]Checkpoint, error)
	// viewOf returns the backend of v, a view made by View.
	viewOf(v *Repo) backend
	// close releases what the Repo holds; a view's close does nothing.
	close(view bool) error
	// served reports whether a daemon runs the operations.
	served() bool
}

// localRepo runs a Repo's operations in this process, on the store it
// holds. Its methods live beside the exported ones they implement.
type localRepo struct{ r *Repo }

func (l localRepo) viewOf(v *Repo) backend { return localRepo{v} }

func (l localRepo) served() bool { return false }

func (l localRepo) undo(ctx context.Context, n int, o UndoOptions) (*RestoreResult, error) {
	return l.r.undo(ctx, n, o)
}

func (l localRepo) restore(ctx context.Context, id string, o RestoreOptions) (*RestoreResult, error) {
	return l.r.restore(ctx, id, o)
}
