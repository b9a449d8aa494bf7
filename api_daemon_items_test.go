//go:build unix

package turnback_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/remote"
)

// TestDaemonPartlyUndoneAndRedoCleared: what Turns and Sessions say
// beyond the stored records reaches a client of a served Repo as it is
// here: the paths a partial undo reverted of a turn still on the undo
// stack (Turn.PartlyUndone, which log marks), and which turn replaced
// the undone turns, and when (SessionInfo.RedoCleared, RedoClearedBy,
// which redo's "nothing to redo" names). Before, the API dropped both.
func TestDaemonPartlyUndoneAndRedoCleared(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	ws := newTwins(t, base, "a.txt", "a\n", "b.txt", "b\n")
	startDaemon(t, ws[1].dir, ws[1].store, "")
	for _, w := range ws {
		r, err := turnback.Open(ctx, w.dir, turnback.Options{Store: w.store, LockWait: -1, KeepTurns: -1, KeepAge: -1})
		if err != nil {
			t.Fatalf("%s: Open: %v", w.name, err)
		}
		defer r.Close()
		w.repo = r
	}
	if !ws[1].repo.Served() {
		t.Fatal("the second Repo is not served")
	}
	turn := func(w *twin, name, data string) {
		t.Helper()
		if _, err := w.repo.Snap(ctx, "turn "+name); err != nil {
			t.Fatal(err)
		}
		w.write(t, name, data)
		if _, err := w.repo.End(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range ws {
		if _, err := w.repo.Snap(ctx, "both"); err != nil {
			t.Fatal(err)
		}
		w.write(t, "a.txt", "a2\n")
		w.write(t, "b.txt", "b2\n")
		if _, err := w.repo.End(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := w.repo.Undo(ctx, 1, turnback.UndoOptions{Paths: []string{"a.txt"}}); err != nil {
			t.Fatalf("%s: partial undo: %v", w.name, err)
		}
	}
	partly := func(w *twin) string {
		turns, _, err := w.repo.Turns(ctx)
		if err != nil {
			t.Fatalf("%s: Turns: %v", w.name, err)
		}
		var out []string
		for _, tn := range turns {
			out = append(out, fmt.Sprintf("#%d %v", tn.N, tn.PartlyUndone))
		}
		return strings.Join(out, "; ")
	}
	if a, b := partly(ws[0]), partly(ws[1]); a != "#1 [a.txt]" || b != a {
		t.Fatalf("partly undone: local %q, served %q, want both %q", a, b, "#1 [a.txt]")
	}
	all, err := ws[1].repo.AllTurns(ctx)
	if err != nil || len(all) != 1 || len(all[0].Turns) != 1 || strings.Join(all[0].Turns[0].PartlyUndone, ",") != "a.txt" {
		t.Fatalf("served AllTurns: %+v %v", all, err)
	}

	// The whole turn undone, then a turn that changes the folder
	// replaces it on the redo stack.
	for _, w := range ws {
		if _, err := w.repo.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
			t.Fatalf("%s: undo: %v", w.name, err)
		}
		turn(w, "c.txt", "c\n")
	}
	cleared := func(w *twin) (string, turnback.SessionInfo) {
		list, err := w.repo.Sessions(ctx)
		if err != nil || len(list) != 1 {
			t.Fatalf("%s: Sessions: %+v %v", w.name, list, err)
		}
		s := list[0]
		return fmt.Sprintf("by=%d zero=%v redo=%d", s.RedoClearedBy, s.RedoCleared.IsZero(), s.Redo), s
	}
	a, _ := cleared(ws[0])
	b, s := cleared(ws[1])
	if a != "by=2 zero=false redo=0" || b != a {
		t.Fatalf("redo cleared: local %q, served %q", a, b)
	}
	turns, _, err := ws[1].repo.Turns(ctx)
	if err != nil || len(turns) == 0 || turns[0].N != 2 || !turns[0].Ended.Equal(s.RedoCleared) {
		t.Fatalf("served RedoCleared %v is not turn 2's end: %+v %v", s.RedoCleared, turns, err)
	}
	l, err := ws[1].repo.LatestSession(ctx)
	if err != nil || l.RedoClearedBy != 2 {
		t.Fatalf("served LatestSession: %+v %v", l, err)
	}
}

// TestDaemonNotApplied: undo of a session whose pulled turns are not in
// the folder is ErrNotApplied through a daemon as here (the API's kind
// "not_applied", 409, exit code 1 as the CLI's), not a 500 of kind
// "error" that callers cannot tell apart.
func TestDaemonNotApplied(t *testing.T) {
	f := newPullFixture(t, "bucket-daemon-not-applied")
	ctx := t.Context()
	f.turn(f.a, "turn.txt", "six")
	if _, err := remote.Push(ctx, f.a, f.c, remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if pr, err := remote.Pull(ctx, f.b, f.c, remote.PullOptions{}); err != nil || pr.Pending == nil {
		t.Fatalf("pull: %+v %v", pr, err)
	}
	local := map[string]error{}
	_, local["undo"] = f.b.Undo(ctx, 1, turnback.UndoOptions{})
	_, local["redo"] = f.b.Redo(ctx, 1, turnback.RedoOptions{})
	if !errors.Is(local["undo"], turnback.ErrNotApplied) {
		t.Fatalf("local undo: %v, want ErrNotApplied", local["undo"])
	}
	dir, store := f.b.WorkTree(), f.b.StoreDir()
	if err := f.b.Close(); err != nil {
		t.Fatal(err)
	}
	info, _ := startDaemon(t, dir, store, "")
	e := unixClient(info.Socket).fails(t, "POST", "/v1/sessions/s/undo", `{"count":1}`, 409, 1)
	if e["kind"] != "not_applied" || e["error"] != local["undo"].Error() {
		t.Fatalf("the API's error document: %v", e)
	}
	r, err := turnback.Open(ctx, dir, turnback.Options{Store: store, Session: "s", LockWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Served() {
		t.Fatal("not served")
	}
	for _, op := range []string{"undo", "redo"} {
		var err error
		if op == "undo" {
			_, err = r.Undo(ctx, 1, turnback.UndoOptions{})
		} else {
			_, err = r.Redo(ctx, 1, turnback.RedoOptions{})
		}
		if errView(err) != errView(local[op]) || errors.Is(err, turnback.ErrNotApplied) != errors.Is(local[op], turnback.ErrNotApplied) {
			t.Fatalf("served %s: %v, want as here: %v", op, err, local[op])
		}
	}
}
