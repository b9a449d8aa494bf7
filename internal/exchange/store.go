package exchange

import (
	"context"
	"fmt"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/internal/sessname"
)

// Store is what this package needs of a *turnback.Repo that holds its
// store: the hold, the records, the content.
type Store interface {
	// Lock holds the store until Unlock.
	Lock(ctx context.Context) error
	Unlock()
	// ReadOnly reports whether the Repo was opened for reading.
	ReadOnly() bool
	// Session is the Repo's session.
	Session() string
	// Records is the store's record database.
	Records() cas.Backend
	// Content is the store's blobs, chunk lists and trees.
	Content() *cas.Store
	// Commit writes and deletes records in one transaction.
	Commit(ctx context.Context, writes []cas.Entry, deletes [][]byte) error
	// Sessions returns every session record.
	Sessions(ctx context.Context) ([]*model.SessionRecord, error)
	// LoadSession returns session name's record (a new one if none).
	LoadSession(ctx context.Context, name string) (*model.SessionRecord, error)
	// LoadTurn returns turn n of session.
	LoadTurn(ctx context.Context, session string, n int) (*model.Turn, error)
	// Checkpoints returns every checkpoint.
	Checkpoints(ctx context.Context) ([]model.Checkpoint, error)
	// Latest returns the newest recorded state, or zero.
	Latest(ctx context.Context) (cas.Hash, error)
	// Pulled returns the store-local record an import of remote leaves
	// of the folder's state: a write, or the key to delete.
	Pulled(ctx context.Context, remote *model.SessionRecord) (write *cas.Entry, del []byte, err error)
}

// Open returns the Store of repo, a *turnback.Repo of this process
// that holds its store. Package turnback sets it when it is loaded;
// repo is an any because this package cannot import turnback.
var Open func(repo any) Store

// validSession is the root's ValidSession.
func validSession(name string) error {
	if err := sessname.Check(name); err != nil {
		return fmt.Errorf("turnback: %w", err)
	}
	return nil
}
