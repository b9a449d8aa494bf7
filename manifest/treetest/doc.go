// Package treetest reads a folder on disk into a comparable value and
// writes one back. Tests use it to check, byte for byte, what a capture,
// undo, redo or restore left. It is the one tree fixture of the tests.
//
// # Terms
//
//   - Tree: a map from slash path to Entry, the root excluded.
//   - Entry: a file with content and mode bits, a directory with mode
//     bits, a symlink with its target, or KindOther with its type.
//   - Mode bits: permission bits plus setuid, setgid and sticky
//     (ModeMask). Timestamps, owners and inodes are not part of a Tree.
//   - Diff: every way two trees differ, as sorted readable lines. Equal
//     stops the test on a difference, Check reports it and goes on.
//   - Put, PutAll, PutPath: a test's edits, one file or a few, with
//     their parents. An existing file keeps its mode.
//   - With, Without, Under: a wanted tree made from another.
//   - Copy: a folder copied with its modes. DiskUsage: what du reports.
//
// # Failure behaviour
//
// Read returns the first error met, naming the path. MustRead fails the
// test with it. Symlinks are never followed, and nothing changes the
// folder read.
package treetest
