package turnback

import (
	"context"

	"github.com/turnback/turnback/internal/storedir"
)

// Where stores live and how a directory is known as one: package
// internal/storedir. These names are the library's API for it.

// DefaultLockWait is how long Open waits for another process by
// default: 10 seconds.
const DefaultLockWait = storedir.DefaultLockWait

// OrphanStore is a store under the default location whose work tree no
// longer exists.
type OrphanStore = storedir.OrphanStore

// DefaultStoreDir returns where the store of workTree lives unless told
// otherwise: $TURNBACK_STORE if set, else
// ${XDG_DATA_HOME:-~/.local/share}/turnback/<name>-<hash of the path>.
func DefaultStoreDir(workTree string) (string, error) { return storedir.DefaultStoreDir(workTree) }

// Locate finds the work tree for a command run in dir, as git finds
// .git: the nearest ancestor of dir (dir included) whose default store
// exists, else dir itself. With an explicit store (storeDir or
// $TURNBACK_STORE), the work tree that store records is used when dir
// lies inside it.
func Locate(dir, storeDir string) (workTree, store string, err error) {
	return storedir.Locate(dir, storeDir)
}

// CheckLocation runs the checks Open makes before it creates anything:
// the work tree exists (and, without force, is not / or the home
// directory), the store is not inside it, and the store does not belong
// to another work tree. It creates nothing.
func CheckLocation(workTree, store string, force bool) error {
	return storedir.CheckLocation(workTree, store, force)
}

// DefaultStoreRoot returns the directory holding the default stores.
func DefaultStoreRoot() (string, error) { return storedir.DefaultRoot() }

// OrphanStores lists the stores under the default location whose work
// tree is gone. With remove, it deletes them (each is first checked not
// to be in use: a store held by another process is skipped).
func OrphanStores(ctx context.Context, remove bool) ([]OrphanStore, error) {
	return storedir.OrphanStores(ctx, remove)
}
