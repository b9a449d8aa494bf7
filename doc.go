// Package turnback gives per-turn undo and redo of every file change in a
// folder. It works in any folder, a git repository or not, without git.
//
// A Repo binds one work tree to its store and one session. Snap captures
// the before-state of a turn, End its after-state. Undo reverts the last
// turns, Redo re-applies them, Restore makes the folder one snapshot.
// Status, Diff, Turns, Show, Info and Verify read. GC forgets old turns.
// The reasons behind this design are in docs/design.md.
//
// # Terms
//
//   - Work tree: the folder turnback protects. Open refuses / and the home
//     directory unless Options.Force is set.
//   - Store: one directory per work tree, outside it. It holds a format
//     marker and the database. DefaultStoreDir and Locate find it.
//   - Blob, tree: file content by its BLAKE3 hash (package cas), and a
//     directory's sorted entries (package manifest).
//   - Snapshot: a root tree. Its id is its hash, so an unchanged folder
//     keeps its id. An id prefix needs at least MinIDPrefix hex digits.
//   - Turn reference: @N is the state after turn N, @N^ the state before.
//   - Session: an independent stack of turns, one per agent conversation.
//   - Turn: what happened between a snap and its end. A turn that changed
//     nothing is dropped when it closes.
//   - Undo stack, redo stack: the session's turns, and the undos a redo
//     can bring back. A turn that changes the folder clears the redo stack.
//   - Partial undo: an undo of only some paths. Its turns stay on the
//     undo stack.
//   - Checkpoint: the state an undo, redo or restore replaced. Restoring
//     it goes back.
//   - Notice: what undos and redos changed, kept until the agent's next
//     snap takes it, once.
//   - Content by reference: a file over the size limit that Git LFS,
//     git's objects or a clone in the store already holds.
//   - Served Repo: a Repo whose methods run in a watch daemon over its
//     socket. Open returns one when a daemon serves the folder.
//
// # Invariants
//
//  1. Nothing is lost. What a restore replaces is in the store first, in
//     the checkpoint it returns. Paths are read again as they are replaced.
//  2. All or nothing. A restore changes every planned path or none, also
//     after a crash. The next Open finishes or rolls it back.
//  3. Only the turn. Undo changes only the paths the undone turns changed.
//  4. Conflicts stop. A path edited since the turn makes the command change
//     nothing and return a *ConflictError, unless forced.
//  5. Confined. Every file operation goes through an os.Root on the work
//     tree. Symlinks are stored as links, never followed.
//  6. Verified. Every blob is checked against its hash when read.
//  7. No one gains. A restore as root never makes a setuid file for
//     another owner. Names are data, kept byte for byte.
//  8. Invisible until used. A capture never changes the work tree.
//     turnback never writes .git and never runs git.
//
// # Errors and concurrency
//
// One process holds a store at a time. Open waits Options.LockWait, then
// fails with ErrBusy. A Repo's methods are safe for concurrent use and run
// one at a time. Callers branch with errors.Is and errors.As on the
// sentinels and types in errors.go: ErrConflict, ErrUnfinished, ErrBusy,
// ErrUnknownID and the others.
package turnback
