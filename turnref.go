package turnback

import (
	"context"
	"fmt"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// Snapshot ids and turn references: everywhere a snapshot id is
// accepted (Restore, Show, Diff), the argument is a snapshot id prefix
// of at least MinIDPrefix hex digits or a turn reference, "@N" (the
// state after turn N of the Repo's session) or "@N^" (before it).
// Package internal/model parses them and says which errors they give.

// MinIDPrefix is the fewest hex digits a snapshot id prefix may have.
const MinIDPrefix = model.MinIDPrefix

// TurnRef is a parsed turn reference.
type TurnRef = model.TurnRef

// IsTurnRef reports whether s is meant as a turn reference (it starts
// with "@", surrounding spaces aside), valid or not (ParseTurnRef
// refuses the spaces).
func IsTurnRef(s string) bool { return model.IsTurnRef(s) }

// ParseTurnRef parses a turn reference, "@N" or "@N^" with N a decimal
// number of at least 1. ok is false when s is not meant as one (see
// IsTurnRef); err, matching ErrBadRef, says why one that is meant as
// one is malformed (spaces around it too).
func ParseTurnRef(s string) (ref TurnRef, ok bool, err error) { return model.ParseTurnRef(s) }

// parseID checks a snapshot id prefix (not a turn reference) and
// returns it in lower case.
func parseID(s string) (string, error) { return model.ParseID(s) }

// turnState resolves a turn reference in the Repo's session.
func (r *Repo) turnState(ctx context.Context, ref TurnRef) (cas.Hash, error) {
	t, _, err := r.findTurn(ctx, ref.N)
	switch {
	case err != nil:
		return cas.Hash{}, err
	case ref.Before:
		return t.Before, nil
	case t.Open():
		return cas.Hash{}, r.openTurnError(t)
	}
	return t.After, nil
}

func (r *Repo) openTurnError(t *Turn) error {
	return model.RefError(fmt.Sprintf("turnback: turn %d of session %q is open and has no after-state yet "+
		"(@%d^ is the state before it; status and diff show what it changed so far)", t.N, r.session, t.N), ErrOpenTurn)
}

// findTurn loads turn n of the Repo's session, on its undo stack or
// (undone) on its redo stack.
func (r *Repo) findTurn(ctx context.Context, n int) (t *Turn, undone bool, err error) {
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return nil, false, err
	}
	nums := append([]int{}, sess.Turns...)
	for _, g := range sess.Redo {
		nums = append(nums, g.Turns...)
	}
	lo, hi := 0, 0
	for i, m := range nums {
		if m == n {
			t, err := r.loadTurn(ctx, r.session, n)
			return t, i >= len(sess.Turns), err
		}
		if i == 0 || m < lo {
			lo = m
		}
		hi = max(hi, m)
	}
	has := "it has no turns"
	switch {
	case len(nums) == 1:
		has = fmt.Sprintf("it has 1 turn, turn %d", lo)
	case len(nums) > 1 && hi-lo+1 == len(nums):
		has = fmt.Sprintf("it has %d turns, numbered %d to %d (turnback log lists them)", len(nums), lo, hi)
	case len(nums) > 1:
		has = fmt.Sprintf("it has %d turns, numbered %d to %d with gaps (turnback log lists them)", len(nums), lo, hi)
	}
	return nil, false, model.RefError(fmt.Sprintf("turnback: no turn %d in session %q: %s", n, r.session, has), ErrNoTurn, ErrUnknownID)
}

// ShowTurn returns what turn n of the session changed: the paths with
// their entries before and after. An open turn is ErrOpenTurn, a turn
// the session does not have ErrNoTurn.
func (r *Repo) ShowTurn(ctx context.Context, n int) (*TurnChanges, error) {
	return r.be.TurnChanges(ctx, n, false)
}

// DiffTurn is ShowTurn with the contents Diff loads, for a unified diff.
func (r *Repo) DiffTurn(ctx context.Context, n int) (*TurnChanges, error) {
	return r.be.TurnChanges(ctx, n, true)
}

func (l localRepo) TurnChanges(ctx context.Context, n int, content bool) (*TurnChanges, error) {
	r := l.r
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	t, undone, err := r.findTurn(ctx, n)
	switch {
	case err != nil:
		return nil, err
	case t.Open():
		return nil, r.openTurnError(t)
	}
	out := &TurnChanges{Turn: t, Undone: undone}
	out.Files, out.SkippedNow, err = r.fileDiffs(ctx, t.Before, t.After, nil, content)
	return out, err
}
