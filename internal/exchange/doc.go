// Package exchange is what a copy of a session kept elsewhere needs of
// the store: which records a session owns (Export), which states they
// hold (RecordRoots), how two copies of one session compare and how
// one is brought in (Import), and the session rules applied to a
// remote's list. The S3 remote (internal/remote) is its user; it moves
// the records and the content they reach.
//
// It works on a *turnback.Repo that holds its store through Store,
// which package turnback provides (Open); it imports no S3 code.
package exchange
