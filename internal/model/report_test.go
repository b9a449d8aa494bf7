package model

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
)

func notes(paths ...string) []PathNote {
	var out []PathNote
	for _, p := range paths {
		out = append(out, PathNote{Path: p, Reason: "r " + p})
	}
	return out
}

func pathsOf(ns []PathNote) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Path)
	}
	return out
}

// TestOverwritten: of the conflicts a forced command saw, those at paths
// it changed, then what it displaced, each path once.
func TestOverwritten(t *testing.T) {
	out := &RestoreResult{Restored: []string{"a"}, Deleted: []string{"b"}, Created: []string{"c"}, Conflicts: notes("b", "x")}
	got := pathsOf(Overwritten(out, notes("a", "b", "c", "d")))
	if want := []string{"a", "b", "c", "x"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Overwritten = %q, want %q", got, want)
	}
	if got := Overwritten(&RestoreResult{}, notes("a")); got != nil {
		t.Errorf("nothing changed: %v", got)
	}
}

func TestConflictResult(t *testing.T) {
	res := &RestoreResult{Conflicts: notes("a")}
	got, err := ConflictResult(res, &ConflictError{Result: &RestoreResult{Conflicts: notes("b")}})
	var ce *ConflictError
	if got != res || !errors.As(err, &ce) || ce.Result != res || !reflect.DeepEqual(pathsOf(res.Conflicts), []string{"a", "b"}) {
		t.Errorf("a conflict: %+v, %v", got, err)
	}
	other := errors.New("disk on fire")
	if got, err := ConflictResult(&RestoreResult{}, other); got != nil || err != other {
		t.Errorf("another error: %v, %v", got, err)
	}
}

func TestKeptReason(t *testing.T) {
	if got := KeptReason("changed while the command ran"); got != "changed while the command ran" {
		t.Errorf("changed: %q", got)
	}
	if got := KeptReason("it holds ignored entries"); got != "directory kept: it holds ignored entries" {
		t.Errorf("kept: %q", got)
	}
}

// TestDryResult: every list is [] in JSON, never null; a stopped
// preview is a conflict with its conflicts in the result.
func TestDryResult(t *testing.T) {
	res, err := DryResult(&Preview{Turns: 2})
	if err != nil || res.Turns != 2 || res.DryRun == nil {
		t.Fatalf("DryResult = %+v, %v", res, err)
	}
	b, err := json.Marshal(res.DryRun)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "null") {
		t.Errorf("preview JSON has null: %s", b)
	}
	p := &Preview{Stopped: true, Conflicts: notes("a")}
	res, err = DryResult(p)
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Result != res || !reflect.DeepEqual(res.Conflicts, p.Conflicts) {
		t.Errorf("stopped: %+v, %v", res, err)
	}
}

// TestStuckAndMoved: a turn whose every changed path has no content is
// stuck, and a whole undo does not move it; a partial undo moves all.
func TestStuckAndMoved(t *testing.T) {
	turns := []*Turn{{N: 1}, {N: 2}, {N: 3}}
	perTurn := [][]string{{"a", "b"}, {"b"}, {}}
	noContent := map[string]bool{"b": true}
	if got := StuckTurns(perTurn, noContent); got != 1 {
		t.Errorf("StuckTurns = %d, want 1", got)
	}
	if got := StuckTurns(perTurn, nil); got != 0 {
		t.Errorf("StuckTurns without noContent = %d", got)
	}
	num := func(ts []*Turn) []int {
		out := []int{}
		for _, t := range ts {
			out = append(out, t.N)
		}
		return out
	}
	if got := num(MovedTurns(turns, perTurn, noContent, false)); !reflect.DeepEqual(got, []int{1, 3}) {
		t.Errorf("MovedTurns whole = %v, want [1 3]", got)
	}
	if got := num(MovedTurns(turns, perTurn, noContent, true)); !reflect.DeepEqual(got, []int{1, 2, 3}) {
		t.Errorf("MovedTurns partial = %v, want [1 2 3]", got)
	}
	got := OldestOnce([]*Turn{{N: 3}, {N: 1, Message: "first"}, {N: 3}, {N: 1}, {N: 2}})
	if !reflect.DeepEqual(num(got), []int{1, 2, 3}) || got[0].Message != "first" {
		t.Errorf("OldestOnce = %v", num(got))
	}
	if got := OldestOnce(nil); got == nil || len(got) != 0 {
		t.Errorf("OldestOnce(nil) = %#v, want empty, not nil", got)
	}
}

func TestTurnsText(t *testing.T) {
	for _, c := range []struct {
		nums []int
		want string
	}{
		{nil, "no turn"},
		{[]int{3}, "turn 3"},
		{[]int{2, 3, 4}, "turns 2 to 4"},
		{[]int{2, 5}, "turns 2, 5"},
		{[]int{2, 3, 5}, "turns 2, 3, 5"},
	} {
		if got := TurnsText(c.nums); got != c.want {
			t.Errorf("TurnsText(%v) = %q, want %q", c.nums, got, c.want)
		}
	}
}

func TestNotAppliedError(t *testing.T) {
	err := error(NotAppliedError("turnback: undo changed nothing"))
	if !errors.Is(err, ErrNotApplied) || errors.Is(err, ErrConflict) || err.Error() != "turnback: undo changed nothing" {
		t.Errorf("NotAppliedError: %v", err)
	}
}

func TestFirstLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"  fix it  ", "fix it"},
		{"one\ntwo", "one"},
		{"\n\none\r\ntwo", "one"},
		{strings.Repeat("x", 600), strings.Repeat("x", 500)},
	} {
		if got := FirstLine(c.in); got != c.want {
			t.Errorf("FirstLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestPartialEntry: the record becomes partial with the paths, its
// other fields kept; a value that is not a record stays.
func TestPartialEntry(t *testing.T) {
	var h cas.Hash
	h[0] = 9
	e := SnapshotEntry(h, KindCheckpoint, 3, 4, nil)
	for _, paths := range [][]string{{"a", "b"}, nil} {
		got := PartialEntry(e, paths)
		var rec SnapshotRecord
		if err := json.Unmarshal(got.Value, &rec); err != nil {
			t.Fatal(err)
		}
		if string(got.Key) != string(e.Key) || !rec.Partial || len(rec.Paths) != len(paths) || rec.Kind != KindCheckpoint || rec.Files != 3 {
			t.Errorf("PartialEntry(%v) = %s", paths, got.Value)
		}
	}
	bad := cas.Entry{Key: []byte("k"), Value: []byte("{")}
	if got := PartialEntry(bad, nil); string(got.Value) != "{" {
		t.Errorf("PartialEntry of a damaged record = %s", got.Value)
	}
}
