// Package dotgit recognises the names that stand for git's repository
// directory, ".git", on some filesystem: Is is true for ".git" in any
// case (".GIT", ".Git"), and for the other spellings git itself refuses
// (see git's is_hfs_dotgit and is_ntfs_dotgit):
//
//   - HFS+ ignores some Unicode code points in names, so ".g\u200cit"
//     is ".git" there. The code points are those git's next_hfs_char
//     skips: U+200C to U+200F, U+202A to U+202E, U+206A to U+206F and
//     U+FEFF.
//   - NTFS drops trailing dots and spaces (".git." and ".git " are
//     ".git"), gives ".git" the short name "GIT~1", and reaches a
//     directory's default stream as ".git::$INDEX_ALLOCATION". A name
//     that starts with ".git" or "git~N" (N digits) and goes on with
//     dots and spaces only, up to its end, a backslash or a colon, is
//     ".git" there.
//
// Is is the union of both rules, applied after the ignorable code points
// are dropped, whatever the filesystem at hand: a store made on Linux may
// be restored on macOS or Windows, and a remote may be hostile. Capture
// ignores every such entry and restore never writes one. The package
// uses only the standard library, so that the walker and the restorer
// can both import it.
package dotgit
