package remote

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas/s3"
)

// CloneResult is what Clone did.
type CloneResult struct {
	Pull *PullResult `json:"pull"`
	// Restored is the session's newest state, now the folder's content.
	Restored string                  `json:"restored"`
	Restore  *turnback.RestoreResult `json:"restore,omitempty"`
	// PullSeconds and RestoreSeconds split the clone's time.
	PullSeconds    float64 `json:"pull_seconds"`
	RestoreSeconds float64 `json:"restore_seconds"`
}

// Clone makes workTree, an empty or absent folder, a copy of a remote
// session: it creates the folder's store (opts.Store, or the default
// place), pulls the session into it (see Pull), records cfg as the
// store's remote, then restores the session's newest state into the
// folder, so that undo, redo, restore, log and diff work as if the
// turns had been recorded here. Everything is downloaded and verified
// before the folder is written: a damaged or missing object fails the
// clone with an error naming it, and removes the store and any folder
// the clone created, leaving an existing folder as it was (empty).
func Clone(ctx context.Context, c *s3.Client, cfg s3.Config, workTree string, opts turnback.Options) (*CloneResult, error) {
	if err := turnback.ValidSession(cmp.Or(opts.Session, turnback.DefaultSession)); err != nil {
		return nil, err // before the folder or its store is made
	}
	createdDir := false
	entries, err := os.ReadDir(workTree)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(workTree, 0o777); err != nil {
			return nil, fmt.Errorf("turnback: clone: %w", err)
		}
		createdDir = true
	case err != nil:
		return nil, fmt.Errorf("turnback: clone: %w", err)
	case len(entries) > 0:
		return nil, fmt.Errorf("%w: clone into %s: the folder is not empty", ErrNotEmpty, workTree)
	}
	if real, err := filepath.EvalSymlinks(workTree); err == nil {
		workTree = real // the default store is named after the real path
	}
	storeDir := opts.Store
	if storeDir == "" {
		if storeDir, err = turnback.DefaultStoreDir(workTree); err != nil {
			return nil, err
		}
	}
	if ents, err := os.ReadDir(storeDir); err == nil && len(ents) > 0 {
		if createdDir {
			_ = os.Remove(workTree)
		}
		return nil, fmt.Errorf("%w: clone into %s: its store %s exists", ErrNotEmpty, workTree, storeDir)
	}
	opts.Store, opts.Access = storeDir, turnback.AccessWrite
	res, err := clone(ctx, c, cfg, workTree, opts)
	if err != nil {
		if res == nil || res.Restored == "" { // the folder was not written
			_ = os.RemoveAll(storeDir)
			if createdDir {
				_ = os.Remove(workTree)
			}
		}
		return nil, err
	}
	return res, nil
}

func clone(ctx context.Context, c *s3.Client, cfg s3.Config, workTree string, opts turnback.Options) (*CloneResult, error) {
	r, err := turnback.Open(ctx, workTree, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	start := time.Now()
	pr, err := Pull(ctx, r, c, PullOptions{Session: r.Session()})
	if err != nil {
		return nil, err
	}
	res := &CloneResult{Pull: pr, PullSeconds: time.Since(start).Seconds()}
	if err := Set(ctx, r, cfg); err != nil {
		return res, err
	}
	if pr.last.IsZero() {
		return res, nil
	}
	res.Restored = pr.last.String()
	start = time.Now()
	rr, err := r.Restore(ctx, res.Restored, turnback.RestoreOptions{})
	if err != nil {
		return res, err
	}
	res.RestoreSeconds = time.Since(start).Seconds()
	res.Restore = rr
	return res, r.Close()
}
