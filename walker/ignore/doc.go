// Package ignore decides which paths of a work tree turnback never sees:
// ".git", dependency and cache directories known by their name or by
// what they hold, and the patterns of .gitignore, .ignore and .turnbackignore files, with exactly
// git's gitignore semantics. It never runs git and uses only the standard
// library.
//
// # Use
//
// A walker starts with New, and for every directory it enters loads that
// directory's ignore files in the order of FileNames, compiles each with
// Parse (Base = the directory's path relative to the work-tree root) and
// calls Push to get the Matcher for the directory's entries. For each
// entry it asks Ignored(rel, isDir) and neither records nor descends into
// an ignored one. Matchers are immutable, so the walker's goroutines can
// share them; Push returns a new one and leaves its receiver unchanged.
//
// # Precedence
//
// Judge decides, for one entry, in this order (Ignored is its verdict
// before any evidence is looked at):
//
//  1. An entry named ".git" is ignored, whatever its kind and whatever
//     the ignore files say.
//  2. The first matching pattern found when reading the Rules from the
//     deepest directory up to the root, the files of one directory from
//     the last pushed to the first, and the lines of one file from the
//     last to the first, decides: deeper files win, later files of one
//     directory win (.turnbackignore over .ignore over .gitignore),
//     later lines win. A "!" line means "not ignored": "!build/" keeps
//     a directory the rules below would skip. The user's patterns apply
//     to tracked paths too.
//  3. Otherwise a file is kept.
//  4. A directory holding paths git tracks (Track; the walker reads
//     git's index, see package gitindex) is kept: source is never
//     skipped for its name.
//  5. A directory named in BuiltinDirs (node_modules, __pycache__,
//     .pytest_cache, .mypy_cache, .tox, ...: names only tools use) is
//     ignored.
//  6. Any other directory is kept unless it shows it was generated
//     (Verdict.Probe): a CACHEDIR.TAG starting with the tag
//     convention's signature, or a package manager's marker
//     (.package-lock.json, .modules.yaml, .yarn-state.yml,
//     .yarn-integrity), whatever its name; and for a name of
//     EvidenceDirs (build, dist, target, out, venv, .venv, env, .env,
//     .cache) that name's markers too: pyvenv.cfg or conda-meta for
//     environments, CMakeCache.txt, .ninja_log, meson-private or
//     .rustc_info.json for build outputs. The walker looks for them in
//     the directory's listing (Evidence) and then skips it whole.
//
// Only the path itself is judged: the walker never enters an ignored
// directory, which gives git's rule that nothing inside an excluded
// directory can be re-included.
//
// Judge's Verdict says which rule decided (Source) and, for a pattern,
// which file and line, so a caller can show why a path is skipped.
//
// # Pattern syntax (as in git)
//
// A file is split into lines at '\n'; a UTF-8 byte-order mark at the
// start and a '\r' before the '\n' are dropped, and a line ends at a NUL
// byte. Empty lines and lines starting with '#' are skipped; "\#" and
// "\!" start a pattern with a literal '#' or '!'. Unescaped trailing
// spaces are removed ("\ " keeps one). A leading '!' negates. One trailing
// '/' restricts the pattern to directories and is then removed. A pattern
// that still holds a '/' is anchored: it is matched against the path
// relative to the ignore file's directory (one leading '/' is dropped).
// Otherwise it is matched against the last path component, at any depth.
//
// In the pattern '*' matches any run of bytes without '/', '?' one byte
// other than '/', and "[...]" one byte of a set: ranges "a-z", negation
// by a leading '!' or '^', ']' first is a member, '\' escapes, and the
// ASCII classes [:alnum:] [:alpha:] [:blank:] [:cntrl:] [:digit:]
// [:graph:] [:lower:] [:print:] [:punct:] [:space:] [:upper:] [:xdigit:]
// (git's definitions). A set never matches '/'. '\' makes the next byte
// literal. "**" is special only when it follows the start of the
// pattern or a '/', and ends the pattern or precedes '/': a leading
// "**/" matches in every directory, a trailing "/**" everything inside,
// and "/**/" zero or more directories; any other "**" is a '*'.
// Matching is byte-wise and case-sensitive (core.ignoreCase=false).
//
// Two of git's quirks are kept on purpose, since turnback must agree with
// git: "the start of the pattern" for "**" is where git's wildcard matcher
// starts, which is after the pattern's literal prefix (the bytes before
// the first '*', '?', '[' or '\'), so "foo**/bar" matches "fooX/Y/bar";
// and "**\/" (an escaped slash) makes "**" special without its "zero
// directories" case.
//
// # Algorithm
//
// Each line is compiled once into a literal prefix, a literal suffix and
// a middle of tokens (literal byte, '?', set, '*', "**", "**/"). Common
// middles (nothing, '*', "**", "**/") are checked with string
// operations; anything else runs a Thompson automaton over the tokens,
// with the set of states in one machine word (a slice for patterns of
// 64 tokens or more), after cheap necessary checks (minimum length, first
// and last byte, a literal run the path must contain). The automaton
// never backtracks: a match takes O(len(path) * len(pattern)) time, and
// since a pattern needing more bytes than the path holds is rejected
// before it runs, O(len(path)²) whatever the pattern's length; it does
// not allocate for patterns under 64 tokens. "a*a*a*a*a*a*b" against a
// long name is as fast as any other pattern.
//
// Within one file, plain names ("logs"), anchored plain paths ("/build")
// and "*.ext" lines are found through maps; only the other lines are
// tried one by one, from the last, and only those after the latest line
// the maps found.
//
// # Failure behaviour
//
// Nothing in this package returns an error or panics, whatever the
// input. A line that can never match in git (an unclosed '[', an unknown
// "[:name:]", a trailing unescaped '\', "!" or "/" alone) is dropped; the
// other lines of the file still apply. An invalid bracket makes only its
// own line inert, as git does, instead of being read as a literal '['.
// Reading the ignore files (and any size limit on them) is the walker's
// job: Parse accepts any bytes and is linear in their length.
package ignore
