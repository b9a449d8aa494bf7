// Package gen generates what the benchmark measures on: synthetic
// monorepos of any size and the deterministic agent turn applied to a
// tree.
//
// Algorithm. Plan lays out a monorepo of exactly n regular files and
// symlinks from a seed: ten top-level areas with a random directory tree
// (new directories often below recent ones, for depth up to 16 levels,
// sometimes anywhere, for width), heavy-tailed directory weights (most
// directories hold a few files, some hundreds), 80% text-like source of
// 1–20 KB cut from a corpus of indented keywords and identifiers (it
// compresses like code), 15% under 1 KB, 5% of 20–200 KB, 4% binaries of
// random bytes, 2% duplicates (LICENSE, __init__.py), a few files over
// 10 MiB, 10% of the files in node_modules, one symlink per 2000 files,
// and a root .gitignore. Every file carries its own seed, so its content
// can be produced again alone (Layout.Content repairs a tree with it).
// Generate writes a Layout and returns its ground truth (package truth).
//
// PlanTurn picks, with its own seed, the turn's files among candidates
// that every engine captures (Candidates: what git adds, minus
// turnback's built-in ignored directories, hidden directories and
// directories with .ignore or .turnbackignore files): 20 text files
// modified (a block in the middle rewritten, lines appended), 5 created
// in existing directories, 2 deleted. A Turn keeps the original bytes of
// every path it touches, so Reset can put the tree back whatever an
// engine did.
//
// Terms. The random numbers are splitmix64, specified here, so a tree
// depends only on the seed and Version; Version must change whenever the
// output for a seed changes (cached trees are regenerated then).
//
// Failure behaviour. Plan cannot fail. Generate stops at the first
// error of the file system and returns it; the caller removes the
// partial tree. PlanTurn fails when there are not enough text files.
package gen
