package storedir

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/turnback/turnback/cas"
)

// TestOrphanStores: under the default location, a store whose work tree
// is gone is an orphan; one whose work tree exists, a directory without
// the work-tree note and a plain file are not. Removing deletes the
// orphans that no process holds, and only those.
func TestOrphanStores(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	root := filepath.Join(data, "turnback")
	live := t.TempDir()
	store := func(name, wt string) string {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := RecordWorkTree(dir, wt); err != nil {
			t.Fatal(err)
		}
		b, err := cas.OpenBadger(t.Context(), filepath.Join(dir, "db"), cas.BadgerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	if got, err := OrphanStores(t.Context(), false); err != nil || len(got) != 0 {
		t.Fatalf("no default root yet: %v %v", got, err)
	}
	alive := store("alive-1", live)
	gone := store("gone-2", filepath.Join(live, "deleted"))
	held := store("held-3", filepath.Join(live, "also-deleted"))
	put(t, root, map[string]string{"stranger/notes.txt": "x", "file": "x"})
	names := func(list []OrphanStore) []string {
		var out []string
		for _, o := range list {
			out = append(out, filepath.Base(o.Store)+" "+o.WorkTree)
			if o.Bytes <= 0 {
				t.Errorf("%s: %d bytes", o.Store, o.Bytes)
			}
		}
		return out
	}
	want := []string{"gone-2 " + filepath.Join(live, "deleted"), "held-3 " + filepath.Join(live, "also-deleted")}
	got, err := OrphanStores(t.Context(), false)
	if err != nil || !slices.Equal(names(got), want) {
		t.Fatalf("OrphanStores: %v %v, want %v", names(got), err, want)
	}
	b, err := cas.OpenBadger(t.Context(), filepath.Join(held, "db"), cas.BadgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err = OrphanStores(t.Context(), true)
	if err != nil || !slices.Equal(names(got), want[:1]) {
		t.Fatalf("OrphanStores(remove): %v %v, want %v", names(got), err, want[:1])
	}
	for dir, present := range map[string]bool{alive: true, gone: false, held: true, filepath.Join(root, "stranger"): true} {
		if _, err := os.Stat(dir); (err == nil) != present {
			t.Errorf("%s after removing: %v, want present %v", dir, err, present)
		}
	}
}
