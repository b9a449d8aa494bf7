package turnback

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/internal/stateignore"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
)

// A path ignored in the state an undo, redo or restore starts from, or
// in the state it goes to, is never deleted or rewritten: see package
// internal/stateignore.

// dropIgnored removes from actions every path ignored in the state from
// (what is there now) or the state to (where the command goes), and the
// conflicts reported for them; it returns the notes saying so. A path
// of res's Unseen that from ignores gets a note too: it stays on disk.
func (r *Repo) dropIgnored(ctx context.Context, loader manifest.Loader, actions []restore.Action, from, to cas.Hash, res *RestoreResult) ([]restore.Action, []PathNote, error) {
	if len(actions) == 0 && (res == nil || len(model.Unseen(res)) == 0) {
		return actions, nil, nil
	}
	if err := refuseDotGit(actions); err != nil {
		return nil, nil, err
	}
	skFrom, err := r.skipInfoOfRoot(ctx, from)
	if err != nil {
		return nil, nil, err
	}
	skTo, err := r.skipInfoOfRoot(ctx, to)
	if err != nil {
		return nil, nil, err
	}
	gFrom, gTo := stateignore.New(loader, r.store, from, skFrom), stateignore.New(loader, r.store, to, skTo)
	return stateignore.Drop(ctx, gFrom, gTo, actions, res, r.absent)
}

// absent reports whether nothing is at path p of the work tree now (an
// lstat through the work tree's root finds nothing there). Any doubt,
// an error other than not found included, says no.
func (r *Repo) absent(p string) bool {
	root, err := os.OpenRoot(r.workTree)
	if err != nil {
		return false
	}
	defer root.Close()
	_, err = root.Lstat(p)
	return errors.Is(err, fs.ErrNotExist)
}

// makesIgnored reports whether actions make a path that the state from
// ignores (stateignore.Drop lets one through where nothing is on disk).
// Unless the command also rewrites the rule, its result would hold a
// path a capture skips: the folder is then captured again for the
// result (settle.go).
func (r *Repo) makesIgnored(ctx context.Context, loader manifest.Loader, from cas.Hash, actions []restore.Action) (bool, error) {
	var made []restore.Action
	for _, a := range actions {
		if a.Old == nil && a.New != nil && a.New.Kind != manifest.KindDir {
			made = append(made, a)
		}
	}
	if len(made) == 0 {
		return false, nil
	}
	sk, err := r.skipInfoOfRoot(ctx, from)
	if err != nil {
		return false, err
	}
	g := stateignore.New(loader, r.store, from, sk)
	for _, a := range made {
		if ig, err := g.Ignored(ctx, a.Path, false); err != nil || ig {
			return ig, err
		}
	}
	return false, nil
}
