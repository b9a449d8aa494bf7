package model

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/turnback/turnback/cas"
)

// Snapshot ids and turn references.
//
// Everywhere a snapshot id is accepted (Restore, Show, Diff), the
// argument is either a snapshot id, given as a prefix of at least
// MinIDPrefix hex digits that only one recorded snapshot starts with,
// or a turn reference: "@N" is the state after turn N of the Repo's
// session, numbered as Turns numbers it (undone turns waiting for redo
// included), and "@N^" the state before it. An open turn has no
// after-state yet: "@N" of it is ErrOpenTurn ("@N^" works). A short
// prefix is ErrShortID and ErrBadRef (so that "restore 2", turn 2
// meant, never picks a snapshot whose id starts with 2); a malformed
// reference is ErrBadRef; any other argument that is neither an id nor a
// reference is ErrUnknownID, as it was before references; a turn the
// session does not have is ErrNoTurn (and ErrUnknownID).
// The root package resolves them against a store (turnref.go).

// MinIDPrefix is the fewest hex digits a snapshot id prefix may have.
const MinIDPrefix = 4

// TurnRef is a parsed turn reference.
type TurnRef struct {
	N      int  // the turn number (1 or more)
	Before bool // "@N^": the state before the turn; else after it
}

// String returns the reference as written: "@N" or "@N^".
func (t TurnRef) String() string {
	if t.Before {
		return "@" + strconv.Itoa(t.N) + "^"
	}
	return "@" + strconv.Itoa(t.N)
}

// IsTurnRef reports whether s is meant as a turn reference (it starts
// with "@", surrounding spaces aside), valid or not (ParseTurnRef
// refuses the spaces).
func IsTurnRef(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), "@") }

// ParseTurnRef parses a turn reference, "@N" or "@N^" with N a decimal
// number of at least 1. ok is false when s is not meant as one (see
// IsTurnRef); err, matching ErrBadRef, says why one that is meant as
// one is malformed (spaces around it too: " @1" is most likely a
// mistake in a script).
func ParseTurnRef(s string) (ref TurnRef, ok bool, err error) {
	if !IsTurnRef(s) {
		return TurnRef{}, false, nil
	}
	given := s
	s = strings.TrimSpace(s)
	digits, before := strings.CutSuffix(s[1:], "^")
	bad := func(why string) (TurnRef, bool, error) {
		return TurnRef{}, true, &refError{fmt.Sprintf("turnback: %q is not a turn reference: %s", given, why), []error{ErrBadRef}}
	}
	switch {
	case s != given:
		return bad("remove the spaces around it" + plainHint(s))
	case digits == "":
		return bad("write @N for the state after turn N (as turnback log numbers turns) or @N^ for the state before it")
	case strings.HasSuffix(digits, "^"):
		return bad("only one ^ is allowed (@N^ is the state before turn N)")
	case strings.Trim(digits, "0123456789") != "":
		return bad("N must be a turn number (@N is the state after turn N, @N^ the state before it)")
	}
	n, err := strconv.Atoi(digits)
	switch {
	case err != nil:
		return bad("the turn number is too large")
	case n < 1:
		return bad("turns are numbered from 1")
	}
	return TurnRef{N: n, Before: before}, true, nil
}

// ParseID checks a snapshot id prefix (not a turn reference) and
// returns it in lower case.
func ParseID(s string) (string, error) {
	id := strings.ToLower(strings.TrimSpace(s))
	switch {
	case id != "" && strings.TrimSpace(s) != s:
		return "", &refError{fmt.Sprintf("turnback: %q is not a snapshot id: remove the spaces around it%s", s, plainHint(strings.TrimSpace(s))), []error{ErrBadRef}}
	case id == "" || len(id) > 2*cas.HashSize || strings.Trim(id, "0123456789abcdef") != "":
		// As before turn references: an unknown id (exit 1 in the CLI).
		return "", fmt.Errorf("%w: %q is not a hex id or turn reference (@N, @N^)", ErrUnknownID, id)
	case len(id) < MinIDPrefix:
		msg := fmt.Sprintf("turnback: snapshot id %q is too short: an id prefix needs at least %d hex digits", s, MinIDPrefix)
		if n, err := strconv.Atoi(id); err == nil && n > 0 {
			msg += fmt.Sprintf(" (for turn %d, write @%d)", n, n)
		}
		return "", &refError{msg, []error{ErrShortID, ErrBadRef}}
	}
	return id, nil
}

// plainHint is " (s)" when s is printable ASCII, else "" (an error
// message never carries control characters unquoted).
func plainHint(s string) string {
	for i := range len(s) {
		if s[i] <= ' ' || s[i] > '~' {
			return ""
		}
	}
	return " (" + s + ")"
}

// refError is the error of a snapshot id or turn reference: its message,
// and the sentinels it matches.
type refError struct {
	msg string
	is  []error
}

func (e *refError) Error() string { return e.msg }

// Unwrap makes errors.Is true for each sentinel of the error.
func (e *refError) Unwrap() []error { return e.is }

// RefError returns an error of a snapshot id or turn reference with
// message msg, matching each of is.
func RefError(msg string, is ...error) error { return &refError{msg, is} }
