package turnback

import (
	"os"
	"path/filepath"
	"testing"
)

// TestUndoMakesNoSession: an undo or redo in a session that has no
// record (an agent's new conversation) finds nothing to do and records
// no session, so sessions and push do not list an empty one.
func TestUndoMakesNoSession(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	base := t.TempDir()
	work, store := filepath.Join(base, "work"), filepath.Join(base, "store")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, work, Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Snap(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r, err = Open(ctx, work, Options{Store: store, Session: "new-conversation", Agent: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if res, err := r.Undo(ctx, 1, UndoOptions{}); err != nil || !res.Nothing {
		t.Fatalf("undo: %+v, %v; want nothing to undo", res, err)
	}
	if res, err := r.Redo(ctx, 1, RedoOptions{}); err != nil || !res.Nothing {
		t.Fatalf("redo: %+v, %v; want nothing to redo", res, err)
	}
	list, err := r.Sessions(ctx)
	if err != nil || len(list) != 1 || list[0].Name != DefaultSession {
		t.Errorf("sessions after undo and redo in a new session: %+v, %v; want only default", list, err)
	}
}
