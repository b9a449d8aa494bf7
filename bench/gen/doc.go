// Package gen generates what the benchmark measures on: synthetic
// monorepos of any size, and the deterministic agent turn applied to a
// tree. The layout's proportions are in docs/design.md.
//
// # Terms
//
//   - Plan: lays out a monorepo of exactly n files and symlinks from a
//     seed, with the size mix of a real code base.
//   - Layout: a planned tree. Generate writes it and returns its ground
//     truth. Layout.Content makes one file again alone.
//   - Turn: 20 text files modified, 5 created, 2 deleted, chosen by
//     PlanTurn among files every engine captures. It keeps the original
//     bytes, so Reset can put the tree back.
//   - Version: changes whenever the output for a seed changes. Cached
//     trees are then made again.
//
// # Invariants
//
//   - A tree depends only on its seed and Version. The random numbers
//     are splitmix64, specified here.
//
// # Failure behaviour
//
// Plan cannot fail. Generate returns the first file system error; the
// caller removes the partial tree. PlanTurn fails without enough text
// files.
package gen
