// Package termout formats what the turnback command prints for people
// and programs: paths and free text made safe for a terminal, colours,
// byte counts, the progress line, unified diffs, what a turn changed
// (show @N), warnings about content
// nothing protects, the tables of sessions and logs with the notes about
// which session a command chose, and JSON documents.
//
// # Paths and text
//
// Names from a folder are data: a file name can hold any byte but '/'
// and NUL, and printed raw, "\x1b[2J" would clear the user's screen and
// a newline would forge a line of output. Every path in human output
// goes through QuotePath, which leaves a name of printable characters
// (valid non-ASCII UTF-8 included) as it is and otherwise double-quotes
// it with C escapes (\n, \t, \", \\ ...) and three-digit octal escapes
// for every other control byte, every byte of a C1 control character
// and every byte that is not valid UTF-8. The quoted form is
// unambiguous and never holds a control byte. SafeText does the same
// for free text (an error, a turn's message) without the quotes.
// JSON strings hold only valid UTF-8, so a name that is not gets a
// "<key>_bytes" companion holding it exactly, in base64 (JSONBytes,
// PathsBytes).
//
// # Failure behaviour
//
// Nothing here fails: formatting has no error, and a write error on the
// output (a closed pipe) is left to the command's exit.
package termout
