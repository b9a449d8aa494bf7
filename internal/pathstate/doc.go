// Package pathstate holds the rules over one path's recorded entries
// that undo, redo and restore plan by: whether a path holding one entry
// needs a change to hold another (Same), whether an owner or mode
// difference is an edit made since (MetaReason), and what a restore
// here writes for an entry of a state another machine captured
// (ForeignTarget, ForeignMode, WrittenFrom, WithOwners).
//
// Permission bits of pulled states: a state another machine captured
// records that machine's modes, and a 0777 script there would land world
// writable here. A restore of such a state clears group and other
// write, and the bits the process umask clears, whatever umask started
// the process (a daemon's may be 000). Local states keep exact modes.
//
// Nothing here reads a store or the folder, except WithOwners, which
// reads and writes trees through the loader and saver it is given.
package pathstate
