// Package turnback gives per-turn undo and redo of every file change in a
// folder: any folder, a git repository or not, without the git binary.
//
// A Repo binds one work tree to its store (a Badger database outside the
// tree) and one session. Snap captures the tree as the before-state of a
// new turn; End captures its after-state. Undo reverts the last turns of
// the session, Redo re-applies them, Restore makes the tree exactly a
// snapshot. Status, Diff, Log (Turns), Show and Verify inspect.
//
// # Model
//
// A capture (package walker) stores every file's content as a blob
// addressed by its BLAKE3 hash and every directory as a tree (package
// manifest); the root tree's hash is the snapshot id, so an unchanged tree
// always gets the same id. Turns and sessions are small JSON records in the
// same store, written in one transaction after the blobs and trees they
// name are flushed: a crash leaves at most unreferenced blobs.
//
// # Restores
//
// Undo, Redo and Restore capture the current state, check it for
// conflicts (paths changed outside the turns: *ConflictError, nothing
// changed), keep everything they will overwrite or delete in a checkpoint
// snapshot (whatever its size), then hand a plan to package restore, which
// stages new files, looks at every path it will change once more (full
// hash from disk, never a watcher's word: a difference is a conflict),
// writes a journal (the commit point), applies the plan and commits the
// session records. An edit that lands after that look is taken out with
// the file it edited (an atomic exchange), saved, and added to the
// checkpoint the command returns (displaced.go). Paths ignored in the
// state a command starts from or goes to are left and listed
// (ignored_states.go). Open finishes a restore a crash interrupted before
// it does anything else; one that cannot be finished (a step keeps
// failing) makes every operation fail with an *UnfinishedError until
// Recover finishes it or rolls it back (recover.go).
// Each checkpoint gets a
// record (time, session, the session's newest turn then): GC keeps it as
// long as the turns around it, dropping it only once retention forgets
// the turn after it or it passes the age limit (checkpoints.go).
//
// # Content by reference
//
// A file over the size limit is hashed, not stored. After every capture
// (refs.go) its content is looked for where it already sits (package
// cas/ref: the repository's Git LFS objects, git's object database, or a
// copy-on-write clone made in the store), and what is found is recorded
// in the store's reference table under the content's hash; files with
// no reference are Stats.Unprotected. Restores read content the store
// lacks through refSource (refsource.go), which checks it against the
// hash: before planning, every such file's reference is read in full,
// and a file none gives exactly is not restorable, with the reason
// (never written with other bytes); staging then opens first the
// reference that check read the content back from, so a stale earlier
// reference cannot fail it. Verify reads such content back the same way
// (verifyrefs.go) and reports content no reference still gives. Content a reference holds needs no
// copy in the checkpoint. A restore that leaves paths not restorable is
// Incomplete (the CLI exits 5); an undo whose turns changed only such
// content leaves them on the undo stack (incomplete.go). gc keeps the
// records, and clones, of hashes a live tree holds.
//
// # Long-running processes
//
// A process that keeps a Repo open (the CLI's watch daemon) calls Watch:
// a watch.Watcher then reports which directories changed, and every
// capture reuses the previous capture's trees for the others (walker's
// incremental capture). The watcher is a hint: Sync and Take run before
// each capture, and on any doubt (the first capture, an overflow, the
// watch limit, different capture settings) the capture walks everything
// and WatchInfo says why. gc keeps the previous capture's trees alive.
// View serves another session (and other capture, retention, progress or
// Force settings) from the same open store; views share the mutex, so
// operations still run one at a time. A restore that fails part way in
// such a process is finished or rolled back before its next operation, as
// Open does after a crash.
//
// # Concurrency and failure
//
// One process at a time holds a store; Open waits up to Options.LockWait
// and then fails with an error wrapping ErrBusy that names the holder.
// Within a process, a Repo's methods are safe for concurrent use and run
// one at a time. Errors wrap sentinel values callers branch on: ErrBusy,
// ErrConflict, ErrUnfinished, ErrUnknownID, ErrAmbiguousID, ErrVerify, ErrScope, and
// cas.ErrCorrupt for damaged store data.
package turnback
