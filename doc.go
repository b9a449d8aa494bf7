// Package turnback gives per-turn undo and redo of every file change in a
// folder: any folder, a git repository or not, without the git binary.
//
// A Repo binds one work tree to its store (a Badger database outside the
// tree) and one session. Snap captures the tree as the before-state of a
// new turn; End captures its after-state. Undo reverts the last turns of
// the session, Redo re-applies them, Restore makes the tree exactly a
// snapshot. Status, Diff, Turns, Show, Info and Verify inspect; GC
// forgets old turns and gives the space back.
//
// # Model
//
//   - Work tree: the folder turnback protects. Open refuses the filesystem
//     root and the home directory unless Options.Force says so (ErrScope).
//   - Store: one directory per work tree, outside it (ErrStoreInWorkTree
//     otherwise), holding a format marker, a note naming the work tree and
//     the database. DefaultStoreDir derives its place from the work
//     tree's path; Locate finds the work tree a command run in a
//     subfolder belongs to (the nearest ancestor with a store, as git
//     finds .git).
//   - Blob and tree: a capture (package walker) stores every file's
//     content as a blob addressed by its BLAKE3 hash (package cas) and
//     every directory as a tree listing its entries by name (package
//     manifest). Trees are content-addressed too, so an unchanged
//     directory is the same tree in every capture.
//   - Snapshot: a root tree. Its id is its hash: an unchanged work tree
//     always gets the same id. Every snapshot has a record (a capture, a
//     checkpoint or the result of a restore) so ids can be listed,
//     resolved from a unique prefix of at least MinIDPrefix hex digits
//     (ErrShortID, ErrBadRef, ErrUnknownID, ErrAmbiguousID) and kept by
//     GC. Where an id is accepted, a turn reference also is: @N, the
//     state after turn N of the Repo's session, @N^ the state before it
//     (ErrNoTurn, ErrOpenTurn; turnref.go, which also has ShowTurn and
//     DiffTurn, what one turn changed).
//   - Session: an independent stack of turns (Options.Session, default
//     "default"), so two agents on one folder do not undo each other.
//     An agent's hook names the session after its conversation and
//     records which agent it is (Options.Agent). Sessions lists a
//     store's sessions, FindSession accepts a unique prefix of a name,
//     and LatestSession picks the session for a caller that names none,
//     never guessing between two live ones (sessions.go).
//   - Turn: what happened between a snap (its before-state) and its end
//     (its after-state). Without End, the session's next Snap, or an Undo,
//     closes it at that moment. A turn that changed nothing is dropped
//     when it closes, so an undo always undoes something. Turns are
//     numbered per session, and a number is never reused.
//   - Undo and redo stacks: the session record lists its turns oldest
//     first (the undo stack) and the undos that can be redone (the redo
//     stack), each with the checkpoint it made and the state it left. An
//     undo moves turns to the redo stack, a redo moves them back one at a
//     time. A turn that changed the folder starts a new timeline: when it
//     closes (End, the next Snap, an Undo, or a Redo, which closes the
//     open turn first) the redo stack is cleared. A turn that changed
//     nothing (a question asked after an undo) is dropped and leaves the
//     redo stack as it was, so a redo after it still brings back exactly
//     what the undo took.
//   - Partial undo (UndoOptions.Paths): reverts only the turns' changes
//     at or below the paths given; the turns stay on the undo stack. Its
//     redo-stack entry lists no turns (so the turn lists, GC and the
//     redo rule see none) but the turns it reverted paths of (Partial)
//     and the paths (Paths), with its checkpoint and the state it left
//     (Expected), as a whole undo's. Redo takes it in one step: every
//     path that differs between Expected and the checkpoint (exactly
//     the paths it changed) goes back to the checkpoint, under the same
//     conflict rule; the turns do not move. It needs no turn record, so
//     a later whole undo of the same turns (which finds the reverted
//     paths already at their target) and its redo stay exact: redo
//     brings back the whole undo first, then the partial one.
//   - Notice: what a session's undos and redos changed (the turns, the
//     paths), kept for its agent: each undo or redo adds to it in the same
//     commit as its other records, and SnapNotice takes it in the same
//     commit as its snap, so it is returned at most once and a later one
//     is never lost (notice.go).
//   - Checkpoint: the state an undo, redo or restore replaced, captured
//     before it changes anything and returned as RestoreResult.Checkpoint;
//     Restore of a checkpoint goes back. Its record (time, session, the
//     session's newest turn then) makes GC keep it as long as the turns
//     around it (records.go).
//
// Turn, session, snapshot and checkpoint records are small JSON values in
// the same store (records.go), written in one transaction after the blobs
// and trees they name are flushed: a crash leaves at most blobs nothing
// names, which GC removes.
//
// # Invariants
//
// These are the promises; the tests of this package (the model test
// above all) and of the packages named check each one.
//
//  1. Nothing is lost. Before an undo, redo or restore overwrites or
//     deletes a path, what the path holds is in the store, as part of the
//     checkpoint the command returns, whatever its size. What a path holds
//     is read again from disk at the moment it is replaced, never taken on
//     a watcher's word; an edit that lands after that look is taken out
//     with the file it edited and added to the checkpoint (displaced.go).
//     The store's copy of everything a command replaces is read back
//     before the command changes anything (verifyuse.go, ErrUnverified).
//     A path ignored in either state of a restore is left as it is
//     (ignored_states.go). No operation re-creates a store over existing
//     data.
//  2. All or nothing. A restore changes every path it plans or none,
//     also when the process is killed at any point or the disk fills
//     (package restore: stage, journal as the commit point, apply). The
//     next Open, or the next operation of a process whose restore failed
//     part way, finishes or rolls back the interrupted one before anything
//     else; one that cannot be finished makes every operation fail with an
//     *UnfinishedError until Recover finishes it or rolls it back.
//  3. Only the turn. Undo changes only the paths the undone turns
//     changed (a partial undo: of those, the ones at or below its
//     paths), back to what they held before the earliest of them; paths
//     changed outside those turns stay as they are. Redo likewise changes
//     only the paths the redone turn (or partial undo) changed.
//  4. The conflict rule. If a path that undo would change holds something
//     other than what the newest undone turn that changed it left there
//     (its after-state), or a path that redo would change holds something
//     other than what the undo left there (a path an earlier turn of the
//     same redo set: what that turn's redo left), the command changes
//     nothing and returns a *ConflictError listing those paths; a redo
//     of several turns plans them all first, so a conflict in any of
//     them leaves all undone. With force it
//     proceeds, and by invariant 1 the edits it overwrites stay in the
//     checkpoint.
//  5. Confined. Every file operation goes through an os.Root on the work
//     tree: no "..", absolute path or symlink, stored or on disk, makes
//     turnback read or write outside it. Symlinks are captured and
//     restored as links, never followed (packages walker and restore).
//  6. Verified. Every blob and tree is checked against its hash when read
//     (package cas); damaged data is an error wrapping cas.ErrCorrupt,
//     never wrong bytes on disk. Content read by reference is checked the
//     same way (refsource.go).
//  7. No one gains. A restore run as root gives entries their recorded
//     owner and never creates a setuid or setgid file for another owner
//     (package restore). Names from the folder are data: carried byte for
//     byte, whatever they hold.
//  8. Invisible until used. A capture does not modify the work tree (files
//     are read without updating their access time where the platform
//     allows); only undo, redo and restore write into it. turnback never
//     writes a .git directory and never runs git: from .git it reads only
//     Git LFS objects and git's object database, checked by hash, as
//     content by reference (package cas/ref).
//
// # Restores
//
// Undo, Redo and Restore capture the current state, check it for
// conflicts (conflicts.go), keep everything they will overwrite or delete
// in a checkpoint snapshot, then hand a plan to package restore, which
// stages new files, looks at every path it will change once more (full
// hash from disk: a difference is a conflict), writes a journal (the
// commit point), applies the plan and commits the session records
// (restore.go). Restore makes the whole captured scope exactly a
// snapshot and changes no session's turns. A restore that leaves paths
// not restorable is Incomplete; an undo whose turns changed only such
// content leaves them on the undo stack (incomplete.go).
//
// Merge (UndoOptions.Merge, merging.go): a conflicting path that is a
// text file before the turns, after them and now is merged by package
// restore/merge (base: what the newest turn left; ours: the content the
// undo's capture stored; theirs: the target) instead of being a
// conflict; permission bits merge three-way too. The action's Old stays
// the capture's entry, so the last look before the commit point finds
// an edit made during the merge (a conflict; with Force it is displaced
// instead), and later ones are displaced into the checkpoint; the checkpoint holds the file as it
// was, so redo restores it exactly. Binary content, content over
// merge.MaxSize, a file on one side only, or overlapping edits (without
// MergeMarkers) stay conflicts, their reason saying why.
//
// Dry runs (DryRun of UndoOptions, RedoOptions and RestoreOptions,
// preview.go) plan exactly as the command does (conflicts, merges,
// ignored paths, content by reference, restore.NewPlan's look at the
// disk) and return the lists it would return as RestoreResult.DryRun, a
// Preview; a preview that stops at conflicts comes with the
// *ConflictError. They record nothing. On a Repo opened read-only
// (AccessRead, as the CLI's --dry-run opens it) they write nothing to
// the store at all; on a writable one, their capture stores the current
// content as any capture does (and a dry run of several redos the
// trees of the states it predicts), which only GC removes. A dry run of
// several redos plans each against the state the ones before would
// leave; restore.NewPlan still looks at the disk as it is.
//
// # Content by reference
//
// A file over the size limit is hashed, not stored. After every capture
// (refs.go) its content is looked for where it already sits (package
// cas/ref: the repository's Git LFS objects, git's object database, or a
// copy-on-write clone made in the store), and what is found is recorded
// in the store's reference table under the content's hash; files with no
// reference are Stats.Unprotected. Restores read content the store lacks
// through refSource (refsource.go), which checks it against the hash:
// before planning, every such file's reference is read in full, and a
// file none gives exactly is not restorable, with the reason (never
// written with other bytes); staging then opens first the reference that
// check read the content back from. Verify reads such content back the
// same way (verify.go) and reports content no reference still gives.
// Content a reference holds needs no copy in the checkpoint. GC keeps the
// records, and clones, of hashes a live tree holds.
//
// # Garbage collection
//
// GC (gc.go) trims each session's turns to the retention policy, takes as
// roots every state a session, its redo stack, a kept checkpoint, the
// latest capture or a watcher still needs, marks everything they reach,
// then sweeps the rest and makes the database give the disk space back.
// The records go first, so a crash part way leaves only unreferenced
// data. A cheap form of the same policy runs after Snap.
//
// # Long-running processes
//
// A process that keeps a Repo open (the CLI's watch daemon) calls Watch:
// a watch.Watcher then reports which directories changed, and every
// capture reuses the previous capture's trees for the others (walker's
// incremental capture). The watcher is a hint: Sync and Take run before
// each capture, and on any doubt (the first capture, an overflow, the
// watch limit, different capture settings) the capture walks everything
// and WatchInfo says why. Watch holds the store's turn neither while
// the watcher builds its watches (captures meanwhile are full walks that
// never ask the watcher, so none becomes the base of an incremental one)
// nor for more than one full capture after that, which it skips when an
// operation has just made one; full captures count their trees as they
// write them (walker.Options.Totals), so the first incremental capture
// loads none to count them. GC keeps the previous capture's trees alive.
// View serves another session (and other capture, retention, progress or
// Force settings) from the same open store; views share the store's
// turn, so operations still run one at a time.
//
// # Programs: the HTTP API and daemon-served Repos
//
// A watch daemon (turnback watch, turnback serve) holds the store for
// as long as it runs, so a program that opened the store itself would
// wait and then fail with ErrBusy. Instead, Open on a folder whose
// daemon serves returns a Repo whose methods run in the daemon
// (api_client.go; Repo.Served): Snap, SnapWith, End, Undo, Redo,
// Restore, Status, Diff, Turns, Show, Sessions, Verify, GC and Info
// send one typed request each over the daemon's unix socket and turn
// the answer back into the same values and errors (a *ConflictError
// with its result, an *UnfinishedError, sentinels for the rest);
// methods the daemon does not run for others fail (Options.Local opens
// the store in the process instead). A call that finds the daemon gone
// before anything ran (its idle timeout) opens the store in the process,
// once, and goes on there.
//
// The API is HTTP/1.1 with one JSON document in and out (api_types.go,
// testdata/openapi.json), served by NewHandler (api_server.go) on a
// view per request for the session named. Why HTTP on the daemon's
// own socket rather than a second socket or a new framed operation: one
// address (info's watch_daemon.socket) serves the CLI's forwarded
// command lines and every program; the daemon tells them apart by the
// first byte of a connection (a frame starts with 'q', an HTTP request
// with a method name), so curl and any language's HTTP client work
// without a turnback library, and a daemon of an earlier version simply
// refuses HTTP, so Open falls back to waiting for the store. Errors are
// {"error", "code", "kind"}: the status, the CLI's exit code and what
// callers branch on. Requests of one session that change its stacks run
// one at a time in the handler, so the turns an undo or redo reports
// (looked up before, found again after on the other stack, with their
// Meta) are its own; a command line forwarded at the same moment on the
// same session could still slip between, which only misnames the turns
// reported, never what is undone. Loopback TCP with a bearer token
// (package watch/daemon) is for clients that cannot reach a unix
// socket.
//
// Turn metadata (meta.go) is at most MaxMetaPairs string pairs of
// MaxMetaBytes, checked by CheckMeta, stored in the turn record
// (Turn.Meta) and never interpreted.
//
// # Concurrency and failure
//
// One process at a time holds a store; Open waits up to Options.LockWait
// and then fails with an error wrapping ErrBusy that names the holder.
// Within a process, a Repo's methods are safe for concurrent use and run
// one at a time (lock.go): a method waiting for another's turn stops
// when its context is done, with an error wrapping the context's; a view
// also gives up after its LockWait with ErrBusy. Errors wrap the
// sentinels and types of errors.go, which callers branch on with
// errors.Is and errors.As: ErrBusy, ErrConflict (*ConflictError),
// ErrUnfinished (*UnfinishedError), ErrUnverified, ErrPath, ErrUnknownID,
// ErrAmbiguousID, ErrBadRef, ErrShortID, ErrNoTurn, ErrOpenTurn, ErrAmbiguousSession (*AmbiguousSessionError), ErrVerify, ErrScope, ErrStoreInWorkTree, ErrNotStore,
// ErrNoSpace, ErrReadOnly, and cas.ErrCorrupt for damaged store data.
// Their messages name no command-line flags: the CLI adds its own hints.
//
// # Files
//
// repo.go opens and closes a store (Open, View, Close) and lock.go takes
// its turn; location.go and marker.go find and recognise stores, and
// stores.go lists those whose folder is gone. capture.go holds Snap, End
// and the capture they share (watching.go: Watch); inspect.go the reads
// (Status, Show, Diff, Turns, Info), sessions.go Sessions,
// FindSession and LatestSession, and verify.go Verify. restore.go holds
// the step undo.go (Undo), redo.go (Redo) and Restore share, with
// options.go (their options, the paths of a partial undo), merging.go,
// preview.go, conflicts.go, displaced.go, ignored_states.go,
// incomplete.go, verifyuse.go and recover.go around it; records.go the records,
// notice.go the notices of undo and redo; gc.go
// retention and collection; refs.go and refsource.go content by
// reference; errors.go every error callers branch on (meta.go declares
// ErrInvalidMeta with its rules). meta.go holds turn metadata;
// api_types.go (the documents), api_server.go and api_errors.go (the
// handler) and api_client.go and api_client_reads.go (the daemon-served
// Repo) the HTTP API.
package turnback
