// Package trees prepares the trees the benchmark runs on and keeps them
// in a cache: a copy of the Go source tree, synthetic monorepos (package
// gen) and folders the user names.
//
// Algorithm. A prepared tree is a directory the benchmark may modify
// (turns are applied to it and undone) plus its ground truth (package
// truth), made while the tree was generated or copied, so no tree is read
// twice. A cached tree has a marker (marker.json: generator, seed, file
// count, Go version or source) written once it is complete, beside the
// saved ground truth (manifest.gob); a tree whose marker does not match
// what is asked for is made again. CheckPristine verifies a tree against
// its ground truth before and after every run and repairs it from its
// Source (the generator, or the directory it was copied from) when a
// run was interrupted mid-turn; Save keeps the stat data that
// verification refreshed, so the next run re-reads nothing.
//
// Failure behaviour. Errors of the file system, of `go env` and of the
// generator are returned; a cached ground truth that cannot be read is
// logged and the tree made again. A folder benchmarked in place has no
// Source: if it differs from its ground truth, CheckPristine fails
// rather than guess.
package trees
