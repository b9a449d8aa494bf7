// Package storedir knows a store directory from the outside: where the
// store of a work tree lives, how a directory is recognised as a store,
// and the files that say so. It opens no store for use; the root
// package does that.
//
// Terms: the work tree is the folder whose changes are recorded; its
// store is a directory, by default DefaultStoreDir(work tree) under
// DefaultRoot. The marker (MarkerName) names the format and version;
// the work-tree note (WorkTreeNote) records the work tree's path. A
// legacy store is one of an earlier turnback, without the marker.
//
// Invariants: nothing here writes into a directory that is neither
// absent, empty, nor a store (Inspect refuses it with model.ErrNotStore);
// a new store's marker is written before anything else; a store is never
// inside its work tree; paths are compared in canonical form.
package storedir
