package turnback

import (
	"github.com/turnback/turnback/manifest"
)

// The trees of one restoring operation. An undo, redo or restore loads
// the same trees in each of its steps: the turns' diff, the capture's
// check of ignore rules, the plan, the checkpoint and result edits, the
// verification. While one runs, loader hands out one CachingLoader, so
// that each tree is decoded once. verifyUse still reads every tree it
// checks from the store (manifest.Reread) and takes only the decoding
// from here. The trees go when the operation ends: none outlives the
// operation that read it, in a daemon either.

// shareTrees makes loader share decoded trees until the returned
// function is called (deferred by the operation, under the store lock).
func (r *Repo) shareTrees() func() {
	c := manifest.NewCachingLoader(manifest.NewCachedStoreLoader(r.store, r.trees))
	if !r.opTrees.CompareAndSwap(nil, c) {
		return func() {} // an operation inside another shares its trees
	}
	return func() { r.opTrees.Store(nil) } // also after forgetOpTrees replaced c
}

// forgetOpTrees drops the shared trees, keeping the sharing on (gc,
// which may take trees out of the store, calls it).
func (r *Repo) forgetOpTrees() {
	if c := r.opTrees.Load(); c != nil {
		r.opTrees.CompareAndSwap(c, manifest.NewCachingLoader(manifest.NewCachedStoreLoader(r.store, r.trees)))
	}
}

// sharedTrees is the running operation's CachingLoader, nil if none.
func (r *Repo) sharedTrees() *manifest.CachingLoader { return r.opTrees.Load() }

// sharedLoader is sharedTrees as a Loader for a capture: nil if no
// operation shares its trees.
func (r *Repo) sharedLoader() manifest.Loader {
	if c := r.sharedTrees(); c != nil {
		return c
	}
	return nil
}
