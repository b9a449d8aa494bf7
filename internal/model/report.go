package model

// What undo, redo and restore report: the rules that turn a command's
// findings into its RestoreResult, its dry run's Preview and the
// turns it moved. The root package applies them.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Overwritten keeps the conflicts (with --force) whose path the command
// really changed, followed by what it displaced (already in out).
func Overwritten(out *RestoreResult, conflicts []PathNote) []PathNote {
	changed := map[string]bool{}
	for _, l := range [][]string{out.Restored, out.Deleted, out.Created} {
		for _, p := range l {
			changed[p] = true
		}
	}
	var keep []PathNote
	listed := map[string]bool{}
	for _, c := range conflicts {
		if changed[c.Path] {
			keep = append(keep, c)
			listed[c.Path] = true
		}
	}
	for _, c := range out.Conflicts {
		if !listed[c.Path] {
			keep = append(keep, c)
		}
	}
	return keep
}

// ConflictResult is what Undo and Redo return when execute failed: a
// conflict found by the last look before the commit point is reported
// with the command's other findings.
func ConflictResult(res *RestoreResult, err error) (*RestoreResult, error) {
	var ce *ConflictError
	if errors.As(err, &ce) {
		res.Conflicts = append(res.Conflicts, ce.Result.Conflicts...)
		return res, &ConflictError{Result: res}
	}
	return nil, err
}

// KeptReason words why a restore left a path: a directory that still
// holds something, or a path changed while (or after) the restore ran.
func KeptReason(why string) string {
	if strings.HasPrefix(why, "changed ") {
		return why
	}
	return "directory kept: " + why
}

// DryResult is the result of a dry run that found p: a preview that
// stops at conflicts is returned with the *ConflictError the command
// would return, its conflicts also in the result's Conflicts.
func DryResult(p *Preview) (*RestoreResult, error) {
	for _, l := range []*[]string{&p.Paths, &p.Restored, &p.Deleted, &p.Created, &p.Merged, &p.Markers} {
		if *l == nil {
			*l = []string{} // JSON: [], not null
		}
	}
	for _, l := range []*[]PathNote{&p.Conflicts, &p.NotRestorable} {
		if *l == nil {
			*l = []PathNote{}
		}
	}
	res := &RestoreResult{Turns: p.Turns, DryRun: p}
	if p.Stopped {
		res.Conflicts = p.Conflicts
		return res, &ConflictError{Result: res}
	}
	return res, nil
}

// MovedTurns returns the turns an undo of turns moves: those it counts
// (the root's keepStuckTurns), all of a partial undo's (perTurn: the
// paths each changed; noContent: paths not restorable for want of
// content).
func MovedTurns(turns []*Turn, perTurn [][]string, noContent map[string]bool, partial bool) []*Turn {
	out := []*Turn{}
	for i, t := range turns {
		if partial || StuckTurns(perTurn[i:i+1], noContent) == 0 {
			out = append(out, t)
		}
	}
	return out
}

// StuckTurns counts the turns whose every changed path (perTurn) is in
// noContent.
func StuckTurns(perTurn [][]string, noContent map[string]bool) int {
	stuck := 0
	for _, paths := range perTurn {
		all := len(paths) > 0
		for _, p := range paths {
			if !noContent[p] {
				all = false
				break
			}
		}
		if all {
			stuck++
		}
	}
	return stuck
}

// OldestOnce sorts turns by number, each once (a partial undo's redo
// and a whole undo's may redo the same turn).
func OldestOnce(turns []*Turn) []*Turn {
	out := []*Turn{}
	seen := map[int]bool{}
	for _, t := range turns {
		if !seen[t.N] {
			seen[t.N] = true
			out = append(out, t)
		}
	}
	slices.SortStableFunc(out, func(x, y *Turn) int { return x.N - y.N })
	return out
}

// TurnsText names turns: "turn 3", "turns 2 to 4", "turns 2, 5".
func TurnsText(nums []int) string {
	switch n := len(nums); {
	case n == 0:
		return "no turn"
	case n == 1:
		return fmt.Sprintf("turn %d", nums[0])
	case nums[n-1]-nums[0] == n-1:
		return fmt.Sprintf("turns %d to %d", nums[0], nums[n-1])
	}
	s := "turns "
	for i, t := range nums {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(t)
	}
	return s
}
