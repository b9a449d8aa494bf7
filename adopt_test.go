package turnback

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/storedir"
)

// adoptWorld makes, under a fresh XDG_DATA_HOME, a folder "old" with one
// ended turn in its default store, then moves it to "new". It returns
// both paths and the old store.
func adoptWorld(t *testing.T) (oldWT, newWT, oldStore string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_DATA_HOME", filepath.Join(base, "xdg"))
	t.Setenv("TURNBACK_STORE", "")
	oldWT, newWT = filepath.Join(base, "old"), filepath.Join(base, "new")
	if err := os.MkdirAll(oldWT, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(oldWT, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r, err := Open(ctx, oldWT, Options{Local: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Snap(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(oldWT, "a.txt"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.End(ctx); err != nil {
		t.Fatal(err)
	}
	oldStore = r.StoreDir()
	r.Close()
	if err := os.Rename(oldWT, newWT); err != nil {
		t.Fatal(err)
	}
	return oldWT, newWT, oldStore
}

// TestAdoptAfterInterruption: an adopt stopped after it renamed the store
// but before it recorded the new path leaves a store every command
// refuses (it records the old path); adopt run again finishes it.
func TestAdoptAfterInterruption(t *testing.T) {
	oldWT, newWT, oldStore := adoptWorld(t)
	ctx := context.Background()
	dst, err := storedir.DefaultStoreDir(newWT)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(oldStore, dst); err != nil { // what the first adopt did
		t.Fatal(err)
	}
	if _, err := Open(ctx, newWT, Options{Local: true, Access: AccessRead}); err == nil {
		t.Fatal("a store recording the old path opened for the new one")
	}
	res, err := Adopt(ctx, newWT, oldWT, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Store != dst || res.Was != dst || res.Turns != 1 {
		t.Errorf("adopt again: %+v", res)
	}
	checkAdoptedTurn(t, newWT)
}

// checkAdoptedTurn checks that newWT's store opens and holds one turn.
func checkAdoptedTurn(t *testing.T, newWT string) {
	t.Helper()
	ctx := context.Background()
	r, err := Open(ctx, newWT, Options{Local: true, Access: AccessRead})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if turns, _, err := r.Turns(ctx); err != nil || len(turns) != 1 {
		t.Errorf("turns after adopt: %d, %v", len(turns), err)
	}
}

// TestAdoptWaitsForHolder: while a process holds the old store (a watch
// daemon started before the move), adopt waits for it, then gives up
// with ErrBusy, changing nothing.
func TestAdoptWaitsForHolder(t *testing.T) {
	oldWT, newWT, oldStore := adoptWorld(t)
	ctx := context.Background()
	b, err := cas.OpenBadger(ctx, filepath.Join(oldStore, "db"), cas.BadgerOptions{Holder: "a daemon"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Adopt(ctx, newWT, oldWT, Options{LockWait: 200 * time.Millisecond})
	b.Close()
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("adopt of a held store: %v, want ErrBusy", err)
	}
	if _, err := os.Stat(filepath.Join(oldStore, "db")); err != nil {
		t.Errorf("the held store moved: %v", err)
	}
	if _, err := Adopt(ctx, newWT, oldWT, Options{}); err != nil {
		t.Errorf("adopt once the holder is gone: %v", err)
	}
}

// TestAdoptKeepsOwnHistory: a new folder's store with a turn of its own
// is not replaced; it is where it was, whole, and so is the old store.
func TestAdoptKeepsOwnHistory(t *testing.T) {
	oldWT, newWT, oldStore := adoptWorld(t)
	ctx := context.Background()
	r, err := Open(ctx, newWT, Options{Local: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Snap(ctx, ""); err != nil {
		t.Fatal(err)
	}
	own := r.StoreDir()
	r.Close()
	if _, err := Adopt(ctx, newWT, oldWT, Options{}); !errors.Is(err, ErrAdopt) {
		t.Fatalf("adopt over a folder's own turn: %v, want ErrAdopt", err)
	}
	for _, s := range []string{own, oldStore} {
		if _, err := os.Stat(filepath.Join(s, "db")); err != nil {
			t.Errorf("store %s: %v", s, err)
		}
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(own), "*"))
	if len(left) != 2 {
		t.Errorf("stores after the refusal: %v", left)
	}
	r, err = Open(ctx, newWT, Options{Local: true, Access: AccessRead})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if ss, err := r.Sessions(ctx); err != nil || len(ss) != 1 || ss[0].Turns != 1 {
		t.Errorf("the folder's own session after the refusal: %+v, %v", ss, err)
	}
}

// TestAdoptKeepsFormatVersion: adopt records the new path in the marker
// and leaves its format version as it was (a store of an earlier version
// is marked anew only by a command that opens it for writing). An adopt
// stopped between the marker and the note is finished by another.
func TestAdoptKeepsFormatVersion(t *testing.T) {
	oldWT, newWT, oldStore := adoptWorld(t)
	ctx := context.Background()
	marker := filepath.Join(oldStore, storedir.MarkerName)
	data, err := os.ReadFile(marker)
	if err != nil {
		t.Fatal(err)
	}
	older := []byte(strings.Replace(string(data), fmt.Sprintf(`"version": %d`, storedir.FormatVersion), `"version": 3`, 1))
	if string(older) == string(data) {
		t.Fatalf("no version in the marker:\n%s", data)
	}
	if err := os.WriteFile(marker, older, 0o600); err != nil {
		t.Fatal(err)
	}
	dst, err := storedir.DefaultStoreDir(newWT)
	if err != nil {
		t.Fatal(err)
	}
	// What an adopt stopped after the marker leaves: the store renamed,
	// the marker naming the new path, the note the old one.
	if err := os.Rename(oldStore, dst); err != nil {
		t.Fatal(err)
	}
	if err := storedir.MoveMarker(ctx, dst, newWT); err != nil {
		t.Fatal(err)
	}
	if _, err := Adopt(ctx, newWT, oldWT, Options{}); err != nil {
		t.Fatal(err)
	}
	_, m, err := storedir.Inspect(ctx, dst)
	if err != nil || m == nil || m.Version != 3 || m.ExactWorkTree() != newWT {
		t.Fatalf("marker after adopt: %+v, %v", m, err)
	}
	if wt, ok := storedir.RecordedWorkTree(dst); !ok || wt != newWT {
		t.Errorf("note after adopt: %q", wt)
	}
}

// TestAdoptAfterHalfNotes: an adopt stopped after it rewrote one of the
// two notes that name the work tree (the worktree note and the marker)
// leaves a store every command refuses; adopt run again finishes it,
// whichever note was rewritten.
func TestAdoptAfterHalfNotes(t *testing.T) {
	for _, rewritten := range []string{"worktree note", "marker"} {
		t.Run(rewritten, func(t *testing.T) {
			oldWT, newWT, oldStore := adoptWorld(t)
			ctx := context.Background()
			dst, err := storedir.DefaultStoreDir(newWT)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(oldStore, dst); err != nil {
				t.Fatal(err)
			}
			if rewritten == "marker" {
				err = storedir.WriteMarker(dst, newWT)
			} else {
				err = storedir.RecordWorkTree(dst, newWT)
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Open(ctx, newWT, Options{Local: true, Access: AccessRead}); err == nil {
				t.Fatal("a store with notes naming two folders opened")
			}
			res, err := Adopt(ctx, newWT, oldWT, Options{})
			if err != nil {
				t.Fatalf("adopt again: %v", err)
			}
			if res.Store != dst || res.Turns != 1 {
				t.Errorf("adopt again: %+v", res)
			}
			checkAdoptedTurn(t, newWT)
		})
	}
}

// TestAdoptNotesFail: when the new path cannot be recorded in the store
// (here the note's temporary name is taken by a directory), adopt fails
// and puts the store back under its old name, still recording the old
// folder; adopt run again once the cause is gone succeeds.
func TestAdoptNotesFail(t *testing.T) {
	oldWT, newWT, oldStore := adoptWorld(t)
	ctx := context.Background()
	block := filepath.Join(oldStore, storedir.WorkTreeNote+".tmp")
	if err := os.Mkdir(block, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Adopt(ctx, newWT, oldWT, Options{}); err == nil {
		t.Fatal("adopt with its note blocked succeeded")
	}
	if wt, ok := storedir.RecordedWorkTree(oldStore); !ok || wt != oldWT {
		t.Fatalf("the old store after the failure records %q, %v; want %s", wt, ok, oldWT)
	}
	if err := os.Remove(block); err != nil {
		t.Fatal(err)
	}
	if res, err := Adopt(ctx, newWT, oldWT, Options{}); err != nil || res.Turns != 1 {
		t.Fatalf("adopt again: %+v, %v", res, err)
	}
}
