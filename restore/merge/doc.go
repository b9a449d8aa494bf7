// Package merge is the three-way line merge of undo --merge: it takes a
// turn's change out of a text file and keeps what the user wrote since.
//
// # Terms
//
// Three versions of one file: base (what the turn left), ours (the file
// now: the turn's change plus the user's edits) and theirs (what the file
// held before the turn). The result is ours with the changes from base to
// theirs applied, that is with the turn's hunks reverted and the user's
// kept.
//
// # Algorithm
//
// Each version is split into lines that keep their terminator ("\n",
// "\r\n", or none for a last line without one), so lines compare byte for
// byte and the result is a concatenation of input lines: line endings,
// a missing final newline and any bytes are carried as they are. The
// line diffs base→ours and base→theirs come from go-udiff's lcs package
// (deterministic). Their hunks are walked in base order and grouped:
// hunks whose base ranges overlap or touch (one ends where the next
// starts, or both insert at one place) form one group, as in diff3 and
// git. A group with hunks from one side only takes that side's text; a
// group where both sides made the same text takes it once; any other
// group is a conflict. Lines outside every group are base's, which both
// sides kept.
//
// A conflict makes the merge fail (Result.Conflicts > 0, Result.Text nil)
// unless Options.Markers: then the group is written between conflict
// markers, ours first ("<<<<<<< " label, ours, "=======", theirs,
// ">>>>>>> " label), the marker lines ending as base's first line does
// ("\r\n" or "\n"); a side of the group that ends without a newline (the
// end of the file) gets one before the next marker line.
//
// # Failure behaviour
//
// Content holding a NUL byte is binary (ErrBinary) and content over
// MaxSize bytes is too large (ErrTooLarge), in any of the three versions:
// neither is merged, and the caller treats the file as a conflict. The
// merge is a pure function: the same inputs give the same bytes.
package merge
