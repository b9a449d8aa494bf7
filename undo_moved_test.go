package turnback_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/manifest/treetest"
)

// movedView prints RestoreResult.Moved as "N:message:meta" items; "nil"
// for a nil list (the contract says empty, never nil).
func movedView(r *turnback.RestoreResult) string {
	if r == nil {
		return "<nil result>"
	}
	if r.Moved == nil {
		return "nil"
	}
	var out []string
	for _, t := range r.Moved {
		out = append(out, fmt.Sprintf("%d:%s:%v", t.N, t.Message, t.Meta))
	}
	return "[" + strings.Join(out, " ") + "]"
}

// TestRestoreResultMoved: Undo and Redo list the turns they moved in
// RestoreResult.Moved, oldest first, with their messages and meta; a
// dry run the turns it would move (and changes nothing); a partial undo
// and its redo the turns whose paths they set; nothing to do, a conflict
// and Restore none (an empty list, not nil).
func TestRestoreResultMoved(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	dir, store := filepath.Join(base, "work"), filepath.Join(base, "store")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	put := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("a.txt", "one\n")
	repo, err := turnback.Open(ctx, dir, turnback.Options{Store: store, Session: "chat", LockWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	turn := func(msg string, meta map[string]string, edit func()) {
		t.Helper()
		if _, err := repo.SnapWith(ctx, turnback.SnapOptions{Message: msg, Meta: meta}); err != nil {
			t.Fatal(err)
		}
		edit()
		if _, err := repo.End(ctx); err != nil {
			t.Fatal(err)
		}
	}
	turn("first", map[string]string{"message_index": "0"}, func() { put("a.txt", "two\n"); put("b.txt", "b\n") })
	turn("second", map[string]string{"message_index": "2", "prompt_id": "p-2"}, func() { put("c.txt", "c\n") })
	first := treetest.MustRead(t, dir)
	both := "[1:first:map[message_index:0] 2:second:map[message_index:2 prompt_id:p-2]]"

	check := func(what string, res *turnback.RestoreResult, err error, turns int, moved string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if res.Turns != turns || movedView(res) != moved {
			t.Fatalf("%s: turns %d, moved %s; want %d, %s", what, res.Turns, movedView(res), turns, moved)
		}
	}
	res, err := repo.Undo(ctx, 2, turnback.UndoOptions{DryRun: true})
	check("undo 2 --dry-run", res, err, 2, both)
	if got := treetest.MustRead(t, dir); len(treetest.Diff(got, first)) > 0 {
		t.Fatalf("the dry run changed the folder:\n%s", got)
	}
	res, err = repo.Undo(ctx, 2, turnback.UndoOptions{})
	check("undo 2", res, err, 2, both)
	res, err = repo.Undo(ctx, 1, turnback.UndoOptions{})
	check("undo with nothing to undo", res, err, 0, "[]")
	res, err = repo.Redo(ctx, 2, turnback.RedoOptions{DryRun: true})
	check("redo 2 --dry-run", res, err, 2, both)
	res, err = repo.Redo(ctx, 1, turnback.RedoOptions{})
	check("redo 1", res, err, 1, "[1:first:map[message_index:0]]")
	res, err = repo.Redo(ctx, 2, turnback.RedoOptions{})
	check("redo 2 (one left)", res, err, 1, "[2:second:map[message_index:2 prompt_id:p-2]]")
	if got := treetest.MustRead(t, dir); len(treetest.Diff(got, first)) > 0 {
		t.Fatalf("after undo and redo:\n%s\nwant:\n%s", got, first)
	}

	// Partial: the paths of the last turn only; the turns stay.
	res, err = repo.Undo(ctx, 1, turnback.UndoOptions{Paths: []string{"c.txt"}, DryRun: true})
	check("undo --path c.txt --dry-run", res, err, 1, "[2:second:map[message_index:2 prompt_id:p-2]]")
	res, err = repo.Undo(ctx, 1, turnback.UndoOptions{Paths: []string{"c.txt"}})
	check("undo --path c.txt", res, err, 1, "[2:second:map[message_index:2 prompt_id:p-2]]")
	// A second partial undo, of turns 1 and 2, then a redo of both: turn
	// 2 is counted twice in Turns (as before), listed once in Moved,
	// oldest first.
	res, err = repo.Undo(ctx, 2, turnback.UndoOptions{Paths: []string{"b.txt"}})
	check("undo 2 --path b.txt", res, err, 2, both)
	res, err = repo.Redo(ctx, 2, turnback.RedoOptions{})
	check("redo 2 of the partial undos", res, err, 3, both)
	if len(res.Paths) != 2 {
		t.Fatalf("redo of the partial undos: paths %v", res.Paths)
	}

	// A conflict moves nothing.
	put("c.txt", "edited\n")
	res, err = repo.Undo(ctx, 1, turnback.UndoOptions{})
	var ce *turnback.ConflictError
	if !errors.As(err, &ce) || movedView(res) != "[]" {
		t.Fatalf("undo over an edit: %v, moved %s", err, movedView(res))
	}

	// Restore moves no turns.
	res, err = repo.Restore(ctx, "@1", turnback.RestoreOptions{})
	check("restore @1", res, err, 0, "[]")
}

// TestRestoreResultMovedStuck: a turn whose every change is not
// restorable (the content before it was over the size limit and is
// held by nothing) is not counted as undone, and not listed in Moved;
// the other turn of the same undo is.
func TestRestoreResultMovedStuck(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	dir, store := filepath.Join(base, "work"), filepath.Join(base, "store")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	put := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("small.txt", "one\n")
	put("big.bin", strings.Repeat("x", 4096))
	repo, err := turnback.Open(ctx, dir, turnback.Options{Store: store, Session: "chat", LockWait: -1, SizeLimit: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	turn := func(msg string, edit func()) {
		t.Helper()
		if _, err := repo.SnapWith(ctx, turnback.SnapOptions{Message: msg, Meta: map[string]string{"m": msg}}); err != nil {
			t.Fatal(err)
		}
		edit()
		if _, err := repo.End(ctx); err != nil {
			t.Fatal(err)
		}
	}
	turn("small", func() { put("small.txt", "two\n") })
	turn("big", func() { put("big.bin", strings.Repeat("y", 4096)) })
	res, err := repo.Undo(ctx, 2, turnback.UndoOptions{DryRun: true})
	if err != nil || res.Turns != 1 || movedView(res) != "[1:small:map[m:small]]" {
		t.Fatalf("undo 2 --dry-run: %v, turns %d, moved %s", err, res.Turns, movedView(res))
	}
	res, err = repo.Undo(ctx, 2, turnback.UndoOptions{})
	if err != nil || !res.Incomplete() || res.Turns != 1 || movedView(res) != "[1:small:map[m:small]]" {
		t.Fatalf("undo 2: %v, incomplete %v, turns %d, moved %s", err, res.Incomplete(), res.Turns, movedView(res))
	}
}

// TestPreviewJSONLists: a dry run's document has every list as [], also
// when the preview was built with nothing in it (nothing to undo).
func TestPreviewJSONLists(t *testing.T) {
	for _, p := range []turnback.Preview{{}, {Stopped: true, Conflicts: []turnback.PathNote{{Path: "a"}}}} {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("null")) {
			t.Errorf("%s", b)
		}
	}
}
