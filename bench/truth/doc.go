// Package truth keeps the ground truth of a benchmark tree: its reference
// state, every path (relative, slash-separated; the root is "") with its
// kind, permission bits, size, content hash or link target, and the stat
// data seen when the hash was taken.
//
// Algorithm. A State is built once, when a tree is generated or copied
// (or scanned, for a folder used in place), and saved beside the cached
// tree (gob). Verify walks the tree in parallel and compares every path
// with the State byte for byte: the same set of paths, kinds, permission
// bits, sizes, contents and link targets. Modification times are not
// compared (restores set them to now). A file whose inode, ctime and
// mtime equal the recorded ones cannot have other content, so by default
// only files something touched are re-read; files found identical get
// their new stat data recorded, so the next verification trusts them.
//
// Terms. An Entry holds no pointers (paths and link targets live in one
// byte slice, State.Names), so a State of a million paths costs the
// garbage collector nothing to scan while the in-process engine runs.
// Content hashes are SHA-256 truncated to 16 bytes.
//
// Failure behaviour. Verify returns an error only when the tree cannot be
// walked; differences are its result (counted, the first 40 listed).
// Repair, the harness's safety net after an engine failed to put a tree
// back, rewrites every differing path from a Source and fails when the
// tree still differs afterwards or when there is no Source (a folder
// benchmarked in place). Neither is ever part of a measurement.
package truth
