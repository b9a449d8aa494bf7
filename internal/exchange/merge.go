package exchange

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/turnback/turnback/internal/model"
)

// pullKeeps decides what a pull does with the local record of the
// remote's session (remote, with turns its head's turn records): keep
// the local one (true), take the remote's (false), or neither
// (model.ErrDiverged, saying why and what to do). Taking the remote's must
// lose nothing of the local session: its turns, its undos, its redos.
//
//   - The remote's record is one the local one was (its Rev is among
//     the local Revs), or the two hold the same stacks: keep.
//   - The local record is one the remote's was (a clone or pull that
//     nothing changed since), or it has no turns, no undo and no redo:
//     take.
//   - Otherwise (records from before Revs, or both changed since they
//     last matched): take when the local session has nothing undone and
//     every turn it holds is done on the remote too; keep when the
//     local session holds every turn and every undo of the remote's.
//
// A turn number that names different turns here and there is always
// model.ErrDiverged.
func pullKeeps(ctx context.Context, st Store, remote *model.SessionRecord, turns map[int]*model.Turn) (bool, error) {
	local, err := st.LoadSession(ctx, remote.Name)
	if err != nil {
		return false, err
	}
	here := map[int]*model.Turn{}
	for _, n := range local.AllTurns() {
		t, err := st.LoadTurn(ctx, local.Name, n)
		if err != nil {
			return false, err
		}
		here[n] = t
	}
	for n, t := range here {
		if rt, ok := turns[n]; ok && (rt.Before != t.Before || !t.Open() && !rt.Open() && rt.After != t.After) {
			return false, fmt.Errorf("%w: session %s: turn %d is another turn here than on the remote "+
				"(nothing was changed; push replaces the remote's session, or clone it into another folder)", model.ErrDiverged, remote.Name, n)
		}
	}
	switch {
	case remote.Rev != "" && (remote.Rev == local.Rev || slices.Contains(local.Revs, remote.Rev)),
		sameStacks(local, remote):
		return true, nil
	case local.Rev != "" && slices.Contains(remote.Revs, local.Rev),
		len(local.Turns) == 0 && len(local.Redo) == 0 && local.NextTurn <= remote.NextTurn:
		return false, nil
	}
	holds := func(a, b map[int]*model.Turn, nums []int, remoteOpenOK bool) bool {
		for _, n := range nums {
			t, ok := a[n]
			bt := b[n]
			if !ok || t.Before != bt.Before || t.After != bt.After && !(remoteOpenOK && bt.Open()) {
				return false
			}
		}
		return true
	}
	// Take: nothing undone here, every turn done here done there.
	if len(local.Redo) == 0 && local.NextTurn <= remote.NextTurn && holds(turns, here, local.Turns, false) &&
		subset(local.Turns, remote.Turns) {
		return false, nil
	}
	// Keep: every turn and undo of the remote's is here (a remote turn
	// still open may have been closed here since).
	if remote.NextTurn <= local.NextTurn && holds(here, turns, remote.AllTurns(), true) && groupsIn(remote.Redo, local.Redo) {
		return true, nil
	}
	return false, divergedError(local, remote, turns)
}

// sameStacks reports whether a and b hold the same turns and undos.
func sameStacks(a, b *model.SessionRecord) bool {
	return a.NextTurn == b.NextTurn && slices.Equal(a.Turns, b.Turns) && a.Last == b.Last &&
		(len(a.Redo) == 0 && len(b.Redo) == 0 || reflect.DeepEqual(a.Redo, b.Redo))
}

func subset(a, b []int) bool {
	for _, n := range a {
		if !slices.Contains(b, n) {
			return false
		}
	}
	return true
}

// groupsIn reports whether every undo of gs is in of.
func groupsIn(gs, of []model.UndoGroup) bool {
	for _, g := range gs {
		if !slices.ContainsFunc(of, func(h model.UndoGroup) bool { return reflect.DeepEqual(g, h) }) {
			return false
		}
	}
	return true
}

// divergedError says how the two sessions differ and what to do.
func divergedError(local, remote *model.SessionRecord, turns map[int]*model.Turn) error {
	var why, todo []string
	if len(local.Redo) > 0 && !groupsIn(local.Redo, remote.Redo) {
		why = append(why, turnsAre((&model.SessionRecord{Redo: local.Redo}).AllTurns())+" undone here")
		todo = append(todo, "redo, then pull")
	}
	var onlyHere, onlyThere []int
	for _, n := range local.Turns {
		if _, ok := turns[n]; !ok {
			onlyHere = append(onlyHere, n)
		}
	}
	for _, n := range remote.AllTurns() {
		if !slices.Contains(local.AllTurns(), n) && n > local.Forgotten {
			onlyThere = append(onlyThere, n)
		}
	}
	if len(remote.Redo) > 0 && !groupsIn(remote.Redo, local.Redo) {
		why = append(why, turnsAre((&model.SessionRecord{Redo: remote.Redo}).AllTurns())+" undone on the remote")
	}
	if len(onlyHere) > 0 {
		why = append(why, turnsAre(onlyHere)+" only here")
	}
	if len(onlyThere) > 0 {
		why = append(why, turnsAre(onlyThere)+" only on the remote")
	}
	if len(why) == 0 {
		why = append(why, "the two changed since they last matched")
	}
	todo = append(todo, "or push to replace the remote's session with this one", "or clone the remote's into another folder")
	return fmt.Errorf("%w: session %s: %s; nothing was changed (%s)", model.ErrDiverged, remote.Name,
		strings.Join(why, ", "), strings.Join(todo, "; "))
}

// turnsAre is "turn 5 is" or "turns 5, 6 are".
func turnsAre(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	if len(ns) == 1 {
		return "turn " + s[0] + " is"
	}
	return "turns " + strings.Join(s, ", ") + " are"
}
