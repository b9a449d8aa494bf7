// Package watch tells an incremental capture which directories of a work
// tree to read again. A Watcher keeps one watch on every non-ignored
// directory and collects the directories that changed. Take hands them
// over; Changes.Dirty turns them into walker.Options.Dirty. The watcher is
// a hint: when it cannot vouch for what it reports, it says so, and the
// capture reads everything. The rules, limits and the macOS plan are in
// docs/design.md.
//
// # Use
//
//	w, _ := watch.New(dir, watch.Options{})
//	w.Start(ctx)                     // watches everything
//	w.Sync(ctx)                      // every earlier change is now counted
//	ch := w.Take()                   // the first Take is Full
//	opts.Base, opts.Dirty = last, ch.Dirty() // Dirty is nil when ch.Full
//	res, err := walker.Capture(ctx, root, store, opts)
//	// on error: keep ch and Merge the next Take into it
//
// # Terms
//
//   - Dirty directory: one whose entries were created, removed, renamed,
//     written or changed attributes.
//   - Changes.Dirs: the dirty directories. Changes.Dirty adds their
//     ancestors, which is what the walker needs.
//   - Full: doubt. Something may have changed that no event reported.
//     Changes.Reason says why.
//   - Rebuild: after a doubt, the loop drops every watch and watches the
//     whole tree again with a fresh backend.
//   - Sync: a marker file outside the tree whose event, once handled,
//     proves every earlier change was counted.
//   - Backend: Add, Remove, Events, Errors, Close. fsnotify is the default.
//   - Rescan: an op meaning "what happened below this directory is
//     unknown". The subtree is read again without a doubt.
//
// # Invariants
//
//   - A Take that is not Full covers every change since the previous Take.
//   - The first Take, and every Take until a rebuild completes, is Full.
//   - A new directory is watched before it is listed, so nothing created
//     in it is missed.
//   - One watch per directory, known by device and inode, under its
//     current path.
//   - Ignored directories are never watched. A changed ignore file is a
//     doubt. A marker that shows a directory was generated (a
//     CACHEDIR.TAG...), or a ".git", that comes or goes rescans its
//     directory.
//   - IndexStamps says which git index versions the watch set was
//     judged by: a base captured under others calls for a Doubt.
//   - Doubt on: a kernel or queue overflow, the watch limit, any watcher
//     error, the root removed or replaced, too many dirty directories.
//
// # Concurrency
//
// One goroutine moves events into a bounded queue without blocking. One
// loop goroutine handles them and owns the watches. Take, Sync and Close
// may be called from any goroutine.
//
// # Limits
//
// inotify misses writes through a shared mmap, changes through a hard
// link outside the tree, and changes made by another machine on a network
// filesystem. Each watch counts against fs.inotify.max_user_watches.
package watch
