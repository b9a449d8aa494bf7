// Package trees prepares the trees the benchmark runs on and caches
// them: a copy of the Go source tree, synthetic monorepos, and folders
// the user names.
//
// # Terms
//
//   - Prepared tree: a directory the benchmark may change, with its
//     ground truth, made while the tree was written.
//   - Marker: marker.json, written once a cached tree is complete. A
//     tree whose marker does not match the request is made again.
//   - Source: where a tree can be repaired from: the generator, or the
//     directory it was copied from.
//   - CheckPristine: verifies a tree before and after a run, and repairs
//     it from its Source.
//
// # Failure behaviour
//
// File system, go env and generator errors are returned. A cached ground
// truth that cannot be read is logged and the tree made again. A folder
// benchmarked in place has no Source: if it differs, CheckPristine fails.
package trees
