package model

// Every sentinel and error type of turnback (the root package names
// each): callers branch on these with errors.Is and errors.As, never on
// message text.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/sessname"
)

// ErrConflict: paths the command would change hold edits made outside
// the turns; nothing was changed.
var ErrConflict = errors.New("turnback: conflict")

// ConflictError is returned (wrapping ErrConflict) when undo or redo
// would overwrite edits made outside the turns. Result lists them.
type ConflictError struct{ Result *RestoreResult }

func (e *ConflictError) Error() string {
	n := len(e.Result.Conflicts)
	what := "paths were"
	if n == 1 {
		what = "path was"
	}
	return fmt.Sprintf("turnback: conflict: %d %s changed outside the turns; nothing was changed for them", n, what)
}

// Unwrap makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// ErrUnfinished: an undo, redo or restore passed its commit point and
// could not complete (a step failed: permission refused, an immutable
// file, an I/O error, a full disk). Its journal stays in the store and
// every operation first tries again to finish it; until that works, or
// Recover with rollback puts back what it changed, operations fail with
// an *UnfinishedError.
var ErrUnfinished = errors.New("turnback: an interrupted undo, redo or restore is not finished")

// UnfinishedError wraps ErrUnfinished and the cause (naming the path).
// Fix the cause, then call Recover (or any operation, which tries
// again) to finish the operation, or Recover with rollback to put back
// the state before it.
type UnfinishedError struct{ Err error }

func (e *UnfinishedError) Error() string {
	return fmt.Sprintf("turnback: an undo, redo or restore stopped part way and is not finished: %v", e.Err)
}

// Unwrap makes errors.Is(err, ErrUnfinished) true, and errors.Is and
// errors.As see the cause.
func (e *UnfinishedError) Unwrap() []error { return []error{ErrUnfinished, e.Err} }

// ErrBadSession: a session name the rule of package sessname refuses
// (empty, "." or "..", a slash, backslash, space or control character,
// invalid UTF-8, over 200 bytes).
var ErrBadSession = sessname.ErrInvalid

// ErrBusy: another process holds the store past the lock wait.
var ErrBusy = cas.ErrBusy

// ErrNoSpace: the store's disk is (nearly) full; the error is a
// *cas.NoSpaceError naming the device and the space to free.
var ErrNoSpace = cas.ErrNoSpace

// ErrReadOnly: an operation that records something on a Repo opened
// read-only (AccessRead).
var ErrReadOnly = cas.ErrReadOnly

// ErrScope: the work tree is the filesystem root or the home directory,
// which turnback refuses without Options.Force.
var ErrScope = errors.New("turnback: refusing a work tree that is / or the home directory")

// ErrStoreInWorkTree: the store directory lies inside the work tree it
// would protect (a capture would store the store); nothing was created.
// The error wrapping it names both.
var ErrStoreInWorkTree = errors.New("turnback: the store is inside the work tree")

// ErrNotStore: the directory given as the store holds files turnback
// did not write; nothing was written there.
var ErrNotStore = errors.New("turnback: not a turnback store")

// ErrUnknownID: no snapshot matches the id given.
var ErrUnknownID = errors.New("turnback: unknown snapshot id")

// ErrAmbiguousID: more than one snapshot matches the id prefix given.
var ErrAmbiguousID = errors.New("turnback: ambiguous snapshot id")

// ErrPath: a path given to a partial undo (UndoOptions.Paths) is not
// inside the work tree, or names nothing the turns undone changed; the
// error names it. Nothing was changed.
var ErrPath = errors.New("turnback: bad path")

// ErrVerify: Verify found damaged data.
var ErrVerify = errors.New("turnback: verify found damaged data")

// ErrUnverified: an undo, redo or restore stopped before changing
// anything because content it and its way back need is damaged or
// missing in the store; the work tree is untouched. Verify tells what
// else is damaged.
var ErrUnverified = errors.New("turnback: stopped before changing anything")

// ErrAmbiguousSession: a session name given is the start of several
// sessions' names, or no session was named and another session than the
// one picked has a turn open right now (see Repo.LatestSession); the
// error is an *AmbiguousSessionError.
var ErrAmbiguousSession = errors.New("turnback: ambiguous session")

// AmbiguousSessionError lists the sessions FindSession or LatestSession
// could not choose between, most recently active first.
type AmbiguousSessionError struct {
	// Name is the name given, which every listed session's name starts
	// with; "" when no name was given: then the first session is the
	// one LatestSession picked, the others have a turn open right now.
	Name     string
	Sessions []SessionInfo
}

func (e *AmbiguousSessionError) Error() string {
	names := make([]string, len(e.Sessions))
	for i, s := range e.Sessions {
		names[i] = fmt.Sprintf("%q", s.Name)
	}
	if e.Name == "" {
		return fmt.Sprintf("turnback: %d sessions may be meant (another has a turn open right now): %s", len(names), strings.Join(names, ", "))
	}
	return fmt.Sprintf("turnback: session %q is ambiguous: %d sessions start with it: %s", e.Name, len(names), strings.Join(names, ", "))
}

// Unwrap makes errors.Is(err, ErrAmbiguousSession) true.
func (e *AmbiguousSessionError) Unwrap() error { return ErrAmbiguousSession }

// ErrBadRef: a turn reference that is malformed (see TurnRef), or a
// snapshot id prefix of fewer than MinIDPrefix hex digits (ErrShortID);
// the message names the rule. Nothing was done. (An argument that is
// neither hex nor a reference is ErrUnknownID, as it always was.)
var ErrBadRef = errors.New("turnback: not a snapshot id or turn reference")

// ErrShortID: a snapshot id prefix of fewer than MinIDPrefix hex digits
// (the error also matches ErrBadRef).
var ErrShortID = errors.New("turnback: snapshot id prefix too short")

// ErrNoTurn: a turn reference names a turn its session does not have;
// the message names the session and how many turns it has. The error
// also matches ErrUnknownID.
var ErrNoTurn = errors.New("turnback: no such turn")

// ErrOpenTurn: @N names the open turn, which has no after-state yet
// (@N^, its before-state, works).
var ErrOpenTurn = errors.New("turnback: the turn is open")

// ErrDiverged: the local session and the copy exchange.Import was given
// (a remote's) both changed since they last matched, or number
// different turns alike: taking the copy would lose local state, so
// nothing was changed (see pullKeeps).
var ErrDiverged = errors.New("turnback: the local session and the remote's have diverged")

// ErrNoSession: exchange.Export, or a request to a daemon's HTTP API,
// named a session the store does not have.
var ErrNoSession = errors.New("turnback: no such session")

// ErrInvalidMeta: metadata CheckMeta refuses; nothing was recorded.
var ErrInvalidMeta = errors.New("turnback: invalid turn metadata")

// ErrNotApplied: undo or redo of a session whose newest turns were
// pulled and are not in the folder.
var ErrNotApplied = errors.New("turnback: the pulled turns are not in the folder")

// NotAppliedError is an ErrNotApplied saying which turns and what to do.
type NotAppliedError string

func (e NotAppliedError) Error() string        { return string(e) }
func (e NotAppliedError) Is(target error) bool { return target == ErrNotApplied }
