package cas

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/dgraph-io/badger/v4/table"
)

// TestPrecheck: the rules that keep Badger from deleting tables. A fresh
// or healthy database passes; tables the MANIFEST cannot account for are
// ErrDamaged, except garbage it proves (a table newer than every one it
// names, with the MANIFEST whole).
func TestPrecheck(t *testing.T) {
	ctx := context.Background()
	build := func(t *testing.T) (string, []uint64) {
		dir := t.TempDir()
		b := openTestBadger(t, dir)
		for i := range 3 {
			if err := b.Set(ctx, Entry{Key: []byte(fmt.Sprintf("m/%d", i)), Value: []byte("v")}); err != nil {
				t.Fatal(err)
			}
			// Close and reopen: each close flushes a table.
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			b = openTestBadger(t, dir)
		}
		b.Close()
		m, err := readManifest(filepath.Join(dir, manifestName))
		if err != nil {
			t.Fatal(err)
		}
		var ids []uint64
		for id := range m.live {
			ids = append(ids, id)
		}
		if len(ids) == 0 {
			t.Fatal("no tables")
		}
		return dir, ids
	}
	copyTable := func(t *testing.T, dir string, from, to uint64) {
		data, err := os.ReadFile(table.NewFilename(from, dir))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(table.NewFilename(to, dir), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := precheck(filepath.Join(t.TempDir(), "absent")); err != nil {
		t.Errorf("absent directory: %v", err)
	}
	if err := precheck(t.TempDir()); err != nil {
		t.Errorf("empty directory: %v", err)
	}
	t.Run("healthy", func(t *testing.T) {
		dir, _ := build(t)
		if err := precheck(dir); err != nil {
			t.Error(err)
		}
	})
	t.Run("newer orphan", func(t *testing.T) {
		dir, ids := build(t)
		copyTable(t, dir, ids[0], 1000)
		if err := precheck(dir); err != nil {
			t.Errorf("a table newer than all (a crashed compaction's): %v", err)
		}
	})
	t.Run("orphan with a cut manifest", func(t *testing.T) {
		dir, ids := build(t)
		copyTable(t, dir, ids[0], 1000)
		m := filepath.Join(dir, manifestName)
		fi, _ := os.Stat(m)
		if err := os.Truncate(m, fi.Size()-2); err != nil {
			t.Fatal(err)
		}
		if err := precheck(dir); !errors.Is(err, ErrDamaged) {
			t.Errorf("got %v, want ErrDamaged", err)
		}
	})
	t.Run("listed table missing", func(t *testing.T) {
		dir, ids := build(t)
		if err := os.Rename(table.NewFilename(ids[0], dir), filepath.Join(dir, "moved")); err != nil {
			t.Fatal(err)
		}
		if err := precheck(dir); !errors.Is(err, ErrDamaged) {
			t.Errorf("got %v, want ErrDamaged", err)
		}
	})
	t.Run("no manifest", func(t *testing.T) {
		dir, _ := build(t)
		if err := os.Remove(filepath.Join(dir, manifestName)); err != nil {
			t.Fatal(err)
		}
		if err := precheck(dir); !errors.Is(err, ErrDamaged) {
			t.Errorf("got %v, want ErrDamaged", err)
		}
		before := dirListing(t, dir)
		if _, err := OpenBadger(ctx, dir, BadgerOptions{}); !errors.Is(err, ErrDamaged) {
			t.Errorf("OpenBadger: %v, want ErrDamaged", err)
		}
		if _, err := OpenBadger(ctx, dir, BadgerOptions{ReadOnly: true}); !errors.Is(err, ErrDamaged) {
			t.Errorf("OpenBadger read-only: %v, want ErrDamaged", err)
		}
		if got := dirListing(t, dir); got != before {
			t.Errorf("the directory changed:\n%s\nwant:\n%s", got, before)
		}
	})
}

func dirListing(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	for _, e := range ents {
		fi, _ := e.Info()
		out += fmt.Sprintf("%s %d\n", e.Name(), fi.Size())
	}
	return out
}
