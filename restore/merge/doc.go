// Package merge is the three-way line merge of undo --merge. It takes a
// turn's change out of a text file and keeps what the user wrote since.
// The algorithm is described in docs/design.md.
//
// # Terms
//
//   - Base: what the turn left.
//   - Ours: the file now, the turn's change plus the user's edits.
//   - Theirs: what the file held before the turn.
//   - Result: ours with the changes from base to theirs applied.
//   - Group: hunks of both sides whose base ranges overlap or touch. A
//     group changed differently by both sides is a conflict.
//   - Markers: with Options.Markers, a conflict is written between
//     "<<<<<<<", "=======" and ">>>>>>>" lines, ours first.
//
// # Invariants
//
//   - Lines keep their endings. A missing final newline stays missing.
//   - The result is made of input lines, byte for byte.
//   - The merge is a pure function: the same inputs give the same bytes.
//
// # Errors
//
// Content with a NUL byte is ErrBinary. Content over MaxSize is
// ErrTooLarge. Neither is merged; the caller treats the file as a
// conflict. A conflict without Markers gives Result.Conflicts > 0 and
// a nil Result.Text.
package merge
