// Package termout formats what the turnback command prints, for people
// and for programs. It covers quoting, colours, byte counts, the progress
// line, unified diffs, what a turn changed, warnings, the session and log
// tables, and JSON documents.
//
// # Terms
//
//   - QuotePath: prints a name as it is when it is printable. Otherwise it
//     double-quotes the name with C escapes and octal escapes for control
//     bytes and invalid UTF-8.
//   - SafeText: the same escapes for free text, without the quotes.
//   - Bytes companion: "<key>_bytes", the base64 of a name that is not
//     valid UTF-8, beside its display form in JSON (JSONBytes, PathsBytes).
//
// # Invariants
//
//   - Names are data. No name can clear the screen or forge a line.
//   - The quoted form is unambiguous and holds no control byte.
//   - JSON keeps every name exactly.
//
// # Failure behaviour
//
// Nothing here fails. A write error on the output, such as a closed pipe,
// is left to the command's exit.
package termout
