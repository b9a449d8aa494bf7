// Package ignore decides which paths of a work tree turnback never sees.
// It applies ".git", directories that show they were generated, and the
// patterns of .gitignore, .ignore and .turnbackignore files, with git's
// gitignore semantics. It never runs git
// and uses only the standard library. The matching algorithm is described
// in docs/design.md.
//
// # Use
//
// A walker starts with New. In every directory it loads the ignore files
// in the order of FileNames and compiles each with Parse. Push gives the
// Matcher for that directory's entries. Judge(rel, isDir) gives one
// entry's Verdict; the walker skips an ignored one and never enters it.
//
// # Terms
//
//   - Built-in: an entry named ".git", of any kind, or a directory named
//     in BuiltinDirs (node_modules, __pycache__, .tox, ...: names only
//     tools use). A file with such a name is not ignored.
//   - Evidence: a marker in a directory's listing that shows it was
//     generated (CACHEDIR.TAG, pyvenv.cfg, CMakeCache.txt, ...). A name of
//     EvidenceDirs (build, dist, target, venv, ...) is skipped only with it.
//   - Tracked: a path git's index tracks, or a directory holding such
//     paths. It is never ignored, as in git: not by a built-in, not by
//     evidence, not by an ignore file's pattern (SourceForced). Below a
//     directory a pattern ignores but kept for what git tracks in it
//     (Exclude), every untracked entry is ignored by that pattern.
//   - Rules: the compiled lines of one ignore file, with Base, its
//     directory relative to the root.
//   - Anchored pattern: one that holds a '/'. It matches the path relative
//     to its file's directory. Others match the last component.
//   - Negation: a line starting with '!' means "not ignored".
//   - Directory pattern: one ending in '/'. It matches directories only.
//
// # Precedence
//
// ".git" comes first. Then the first matching line wins, read from the
// deepest directory up, the last file first, the last line first. So
// .turnbackignore beats .ignore, which beats .gitignore, and "!build/"
// keeps a directory the defaults would skip; a match that ignores a
// tracked path keeps it anyway. Without a match, a file is kept; a
// tracked directory is kept; a built-in name is skipped; any other
// directory is skipped only with evidence. Verdict names the rule.
//
// # Invariants
//
//   - The verdicts are git's, quirks included, byte-wise and
//     case-sensitive.
//   - Matchers are immutable. Push returns a new one, so goroutines share
//     them.
//   - A match never backtracks: its time is at most quadratic in the
//     path's length, whatever the pattern.
//   - Nothing here returns an error or panics. A line git could never
//     match is dropped; the rest of its file still applies.
package ignore
