// Package watch tells an incremental capture which directories of a work
// tree to read again. A Watcher keeps an fsnotify watch (one inotify
// watch on Linux) on every non-ignored directory and accumulates the
// directories that changed; Take hands them over, and
// Changes.Dirty turns them into walker.Options.Dirty. The watcher is a
// hint: whenever it cannot vouch for what it reports it says so (Full),
// and the capture reads everything, as without it.
//
// # Use
//
//	w, _ := watch.New(dir, watch.Options{})
//	w.Start(ctx)                     // watches everything
//	...
//	w.Sync(ctx)                      // every earlier change is now counted
//	ch := w.Take()                   // the first Take is always Full (but see CountFromStart)
//	opts.Base, opts.Dirty = last, ch.Dirty() // Dirty is nil when ch.Full
//	res, err := walker.Capture(ctx, root, store, opts)
//	// on error: keep ch and Merge the next Take into it
//
// Base must be the previous capture made this way (or a full one made
// after the previous Take): Take's changes are those since the previous
// Take, and a capture that starts after a Take sees everything that
// happened before it.
//
// # Terms
//
// A directory is dirty when one of its entries was created, removed,
// renamed, written or had its attributes changed. Changes.Dirs holds the
// dirty directories; Changes.Dirty adds their ancestors, which is what
// the walker needs ("this directory or something below it"). Full means
// doubt: something may have changed that no event reported.
//
// # Rules
//
//   - An event on path p marks p's parent dirty; a directory p is marked
//     too (a chmod of a directory, which may make it readable).
//   - Create of a directory (mkdir, or a rename into the tree, which
//     arrives as Create): its watch is added first, then it is listed and
//     each non-ignored subdirectory is handled the same way, every
//     directory found is marked dirty. Events inside a new directory are
//     lost until its watch exists ("mkdir -p a/b/c" reports only a), and
//     this order closes that gap: whatever was created before a watch is
//     found by the listing that follows it.
//   - Remove or Rename of a watched directory drops its watch and those
//     of everything below it (fsnotify drops only the renamed directory's
//     own, and the kernel keeps the others under paths that are now
//     wrong), and marks the parent dirty. A renamed tree's new place
//     arrives as a Create, handled as above; the drop is always handled
//     first, as inotify queues the rename's "from" before its "to".
//     If a directory is at that path again when the event is handled,
//     it is watched and listed again as if created: the event may be
//     older than the loop's view of the path, another directory having
//     taken its place and been watched already (by the listing of an
//     ancestor), and the drop has just removed that watch.
//   - One watch per directory, under its current path. inotify answers
//     an Add of a directory it already watches with that same watch,
//     which fsnotify keeps under the path it was first added with. When
//     directories move again before the loop has handled an earlier
//     rename (say "mv d c; mv a/s c/x": a listing of c finds x/n still
//     watched as a/s/n), the Add would report changes under the path
//     the directory left, and handling the older rename would remove
//     the watch, leaving the directory unwatched; the event announcing
//     its arrival is often lost too (it went to the watch of a
//     directory that was itself just renamed, which fsnotify ends). So
//     the watcher knows each watched directory by identity (device and
//     inode): an Add that finds the directory watched under another
//     path removes that watch (marking the old parent dirty) and adds a
//     fresh one, and a path's own earlier watch, whichever directory it
//     was on, is removed before the path is watched again. Directories
//     below are handled the same way as the listing reaches them.
//   - Events on ignored paths are dropped; ignored directories are never
//     watched. A change to an ignore file (.gitignore, .ignore,
//     .turnbackignore) makes the watcher doubt, since the set of paths
//     the walker sees has changed.
//   - Events are coalesced: Dirs is a set.
//
// # Sync
//
// Events arrive some time after the change. Sync writes a marker file in
// a directory outside the work tree that the same fsnotify watcher
// watches, and waits until the loop has handled the marker's event: one
// inotify instance queues events in the order they happen and the loop
// handles them in that order, so every change made before Sync has been
// counted when it returns.
//
// # Concurrency
//
// One goroutine per fsnotify watcher (the pump) moves events and errors
// into a bounded queue without ever blocking; one goroutine (the loop)
// handles them, owns the watches and rebuilds them. Take, Sync and Close
// may be called from any goroutine. A build marks nothing dirty: the
// Take after it is Full anyway.
// Options.StartPause, called between directories during Start's build,
// lets a caller hold that build while its own work runs (the daemon:
// while a command runs).
//
// # Failure behaviour
//
// The watcher doubts (the next Take is Full, with a Reason) on:
// fsnotify.ErrEventOverflow (the kernel dropped events), any other
// watcher error, its own queue overflowing (Options.QueueSize), the
// inotify watch limit (ENOSPC from Add: raise fs.inotify.max_user_watches),
// any other failure to add a watch, an ignore file changing, the root
// being removed, moved or replaced (Take compares the directory now at
// the root path with the one the watches were built on, by device and
// inode: a new directory there is not watched, and its ignore files are
// read again by the rebuild), more than 131072 dirty directories piling up
// untaken, a directory found to be the root under another path (a bind
// mount) or replaced again and again while it is watched, and before
// the first Take (unless CountFromStart said otherwise: for a caller
// whose base was captured while the watches were built, each directory
// listed after its own watch was added, the first Take reports what
// happened since each watch was added, events of the build included;
// not after a doubt). A Take made while Start still builds the watches is
// Full and does not count as the first (the Take after Start returned
// is Full too): the changes of a Take that is not Full always begin
// after every directory was watched. A directory that
// vanishes while it is scanned is not a doubt: its parent is already
// watched and reports the removal. A directory that cannot be watched or
// listed for lack of permission (the walker cannot read it either) is
// reported dirty by every Take instead.
//
// On doubt the loop rebuilds: it closes the fsnotify watcher, opens a new
// one (so no stale watch survives), drops the events queued from the old
// one and watches the whole tree again. Take keeps reporting Full until a
// rebuild has completed before it was called, so the full capture that
// follows a Full Take is followed by precise changes again. A rebuild
// that cannot watch everything (the watch limit) leaves every Take Full,
// releases its watches, and is tried again at each Take. If the context
// given to Start ends, or Close is called, every Take is Full.
//
// # Limits
//
// inotify does not report writes through a shared mmap, nor changes made
// through a hard link in a directory outside the work tree (or ignored,
// or inside an uncaptured directory), nor anything
// on network filesystems changed by another machine; an unmount inside
// the tree silently ends the watches on it. A directory that is also
// reachable under another path of the tree (a bind mount) is reported
// under one of them only (the one last listed). Each watched directory costs about 1 KB of
// kernel memory and one of fs.inotify.max_user_watches (per user). On
// macOS and the BSDs fsnotify uses kqueue, which opens a descriptor per
// watched file and directory: watching a large tree there runs out of
// descriptors (and so doubts). The rules above are written for inotify.
//
// # Backends
//
// The loop reaches the system only through a backend (backend.go): Add
// and Remove a directory, an Events channel of (absolute path, ops)
// in the order the changes happened, an Errors channel, and Close. A
// build makes a fresh one (Watcher.newBackend), so no state survives a
// doubt. Ops are Create, Write, Remove, Rename, Chmod, as above, and
// Rescan: "what happened at and below this directory is unknown",
// which the loop answers as it answers a created directory (its old
// watches dropped, its ignore rules forgotten, the subtree watched and
// listed again, every directory in it marked dirty) without doubting;
// Rescan of the root is a doubt. An error wrapping errOverflow means
// events were dropped (doubt and rebuild, with the error as reason); any
// other error is a doubt too. The default backend is fsnotify (inotify,
// kqueue, ReadDirectoryChangesW) on every system; nothing above the
// package (the daemon, the root package) sees which one runs.
//
// # Design: an FSEvents backend for macOS (not built yet)
//
// Library: github.com/fsnotify/fsevents (BSD-3, the fsnotify project's
// FSEvents binding; no tagged release, pin a commit). It wraps
// CoreServices' FSEventStream through cgo: building for macOS then needs
// cgo and the macOS SDK. Native builds on a Mac cost nothing more than
// Xcode's command-line tools (a few seconds of C compile, cached);
// cross-compiling from Linux needs osxcross or zig cc with an SDK, which
// the release pipeline does not have today. The cgo-free alternatives
// (loading CoreServices with purego/dlopen, as some projects do) avoid
// the SDK but re-declare the C API by hand. The plan: a file
// fsevents_darwin.go behind the build constraint darwin && cgo, chosen
// by newBackend; darwin builds without cgo (every cross-compile, and
// GOOS=darwin go vet) keep fsnotify/kqueue and its descriptor limit, as
// today. The interface compiles on every system now.
//
// Mapping. One stream per generation on the work tree root and one on
// the cookie directory (or one stream on both paths: events of one
// stream are ordered by event id, which Sync needs), created with
// kFSEventStreamCreateFlagFileEvents (per-file paths and flags),
// WatchRoot (the root moved or removed) and NoDefer, latency about 10
// ms. Add of the root starts the stream; Add and Remove of other
// directories are bookkeeping only (FSEvents watches the whole subtree
// with no per-directory cost, so the inotify watch limit and the
// identity rules above do not arise), except that an ignored directory
// still produces events, dropped by the loop as today. Per-path flags:
// ItemCreated -> Create; ItemRemoved -> Remove; ItemRenamed -> Rename
// when the path is gone, Create when it exists (FSEvents reports both
// ends of a rename with the same flag; an Lstat tells them apart);
// ItemModified, ItemInodeMetaMod, ItemChangeOwner, ItemXattrMod ->
// Write or Chmod. Coalescing: one event may carry several flags and may
// stand for several changes since the last one; the loop already treats
// events as "this path changed, look", and marks by directory, so
// coalesced flags cost nothing but an Lstat. MustScanSubDirs on a path
// -> Rescan of that directory (the subtree is read again, no doubt);
// with UserDropped or KernelDropped (the daemon or the kernel dropped
// events) -> an errOverflow error: doubt, rebuild. RootChanged -> Remove
// of the root (doubt). Mount/Unmount inside the tree -> Rescan of the
// mount point. History replay: a stream can start at a stored event id
// (sinceWhen) and replay what happened while nobody watched, which
// could let a daemon start without a full walk; it is not used at first:
// the daemon's readiness stays as now (watches built, then one full
// capture; the first Take is Full), because replay is per volume, may
// report HistoryDone late, and a journal wrapped or purged gives only a
// MustScanSubDirs of the root, that is, a full walk anyway. Sync: the
// marker file is written in the cookie directory and its ItemCreated
// awaited as now (the stream delivers in event-id order). Limits:
// FSEvents is volume-wide and user-space (fseventsd): no event for
// changes the volume does not journal (some network and FUSE
// filesystems: the daemon is not started there, as on Linux).
package watch
