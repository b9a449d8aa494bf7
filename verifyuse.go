package turnback

import (
	"context"
	"fmt"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
)

// skipVerifyUse turns verifyUse off, for the benchmark that measures its
// cost only.
var skipVerifyUse = false

// verifyUse confirms, before a restore changes the folder, that the
// store holds, readable and correct, everything the way back needs: the
// checkpoint's content of every path the restore replaces or deletes
// (what a redo, or "turnback restore" of the checkpoint, writes back;
// for a directory, every file below it), read back completely and
// hashed, and the checkpoint's trees on the way to those paths. A store
// damaged since that content was captured (a flipped byte in a pack
// file, a lost table) makes the command fail here, with the folder as
// it was, instead of overwriting the only good copy of a file.
//
// Content the restore writes is not read here: staging reads it through
// the same verified reads, and nothing is committed unless all of it
// checks (see restore.Apply). The checkpoint's other trees, shared with
// the state it replaced, are read by every later capture.
func (r *Repo) verifyUse(ctx context.Context, checkpoint cas.Hash, actions []restore.Action) error {
	if skipVerifyUse {
		return nil
	}
	// Every tree is read from the store here, even one the operation
	// has loaded: only its decoding is shared (optrees.go).
	loader := manifest.NewCachingLoader(manifest.NewReread(r.store, r.sharedTrees()))
	seen := map[cas.Hash]bool{}
	trees := map[cas.Hash]bool{}
	var check func(p string, e *manifest.Entry) error
	check = func(p string, e *manifest.Entry) error {
		if e == nil || e.Uncaptured {
			return nil
		}
		switch e.Kind {
		case manifest.KindFile:
			if err := r.store.Verify(ctx, e.Hash, seen); err != nil {
				return unverified(p, e.Hash, err)
			}
		case manifest.KindDir:
			if trees[e.Hash] {
				return nil
			}
			trees[e.Hash] = true
			t, err := loader.LoadTree(ctx, e.Hash)
			if err != nil {
				return unverified(p+"/", e.Hash, err)
			}
			for i := range t.Entries {
				if err := check(manifest.JoinPath(p, t.Entries[i].Name), &t.Entries[i]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, a := range actions {
		if err := ctx.Err(); err != nil {
			return err
		}
		// The checkpoint's trees down to the path (LoadTree checks each
		// against its hash).
		if _, err := manifest.Find(ctx, loader, checkpoint, a.Path); err != nil {
			return unverified(a.Path, checkpoint, err)
		}
		if err := check(a.Path, a.Old); err != nil {
			return err
		}
	}
	return nil
}

func unverified(p string, h cas.Hash, err error) error {
	return fmt.Errorf("%w: the store's copy of %s (content %s), which the way back needs, cannot be used: %w",
		ErrUnverified, p, h.Short(), err)
}
