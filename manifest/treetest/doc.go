// Package treetest reads a folder on disk into a comparable value and
// writes one back, for tests that check what a capture, undo, redo or
// restore left behind, byte for byte. It is the one tree fixture of the
// repository's tests (root, restore, walker and cmd), in the spirit of
// testing/fstest: a Tree is a map from slash path to Entry, and Diff lists
// every way two trees differ in sorted, human-readable lines.
//
// # Terms
//
// A Tree holds everything below a root, the root itself excluded: regular
// files with their content and mode bits, directories with their mode
// bits, symlinks with their target (never followed), and anything else
// (fifos, sockets, devices) as KindOther with its type. Mode bits are the
// permission bits plus setuid, setgid and sticky (ModeMask); timestamps,
// owners and inode numbers are not part of a Tree.
//
// # Failure behaviour
//
// Read returns the first error met (a path that vanished while it was
// read, an unreadable file), naming the path; MustRead fails the test
// with it. Nothing here changes the folder it reads.
package treetest
