// Package truth keeps the ground truth of a benchmark tree: every path
// with its kind, permission bits, size, content hash or link target, and
// the stat data seen when it was hashed.
//
// # Terms
//
//   - State: the reference state, built once when a tree is made and
//     saved beside it with gob.
//   - Entry: one path. It holds no pointers; names live in State.Names,
//     so a large State costs the garbage collector nothing.
//   - Verify: walks the tree in parallel and compares every path with the
//     State. A file with unchanged inode, ctime and mtime is not read.
//   - Repair: rewrites every differing path from a Source.
//
// # Invariants
//
//   - Modification times are never compared: restores set them to now.
//   - Content hashes are SHA-256 truncated to 16 bytes.
//   - Neither Verify nor Repair is ever part of a measurement.
//
// # Failure behaviour
//
// Verify fails only when the tree cannot be walked. Differences are its
// result. Repair fails when the tree still differs, or has no Source.
package truth
