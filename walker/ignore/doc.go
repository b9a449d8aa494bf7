// Package ignore decides which paths of a work tree turnback never sees.
// It applies built-in names and the patterns of .gitignore, .ignore and
// .turnbackignore files, with git's gitignore semantics. It never runs git
// and uses only the standard library. The matching algorithm is described
// in docs/design.md.
//
// # Use
//
// A walker starts with New. In every directory it loads the ignore files
// in the order of FileNames and compiles each with Parse. Push gives the
// Matcher for that directory's entries. Ignored(rel, isDir) judges one
// entry; the walker skips an ignored one and never enters it.
//
// # Terms
//
//   - Built-in: an entry named ".git", of any kind, or a directory named
//     in BuiltinDirs (node_modules, .venv, dist, build, target, ...). A
//     file with such a name is not ignored.
//   - Rules: the compiled lines of one ignore file, with Base, its
//     directory relative to the root.
//   - Anchored pattern: one that holds a '/'. It matches the path relative
//     to its file's directory. Others match the last component.
//   - Negation: a line starting with '!' means "not ignored".
//   - Directory pattern: one ending in '/'. It matches directories only.
//
// # Precedence
//
// Built-ins come first and cannot be re-included. Then the first matching
// line wins, read from the deepest directory up, the last file first, the
// last line first. So .turnbackignore beats .ignore, which beats
// .gitignore. No match means not ignored.
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
