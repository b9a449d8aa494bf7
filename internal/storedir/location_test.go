package storedir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/model"
)

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		dir, p string
		want   bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b", "/a/b/c", true},
		{"/a/b", "/a/b/c/d", true},
		{"/a/b", "/a/bc", false},
		{"/a/b", "/a", false},
		{"/a/b", "/a/c", false},
		{"/a/b", "/a/b/..c", true},
		{"/", "/x", true},
	} {
		if got := Within(c.dir, c.p); got != c.want {
			t.Errorf("Within(%q, %q) = %v, want %v", c.dir, c.p, got, c.want)
		}
	}
}

// TestDefaultStoreDir: $TURNBACK_STORE wins; else the store is under
// $XDG_DATA_HOME/turnback, named by the work tree's base name (made
// safe, at most 40 bytes) and a hash of its whole path.
func TestDefaultStoreDir(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("TURNBACK_STORE", "")
	a, err := DefaultStoreDir("/x/my proj!")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(a) != filepath.Join(data, "turnback") || !strings.HasPrefix(filepath.Base(a), "my_proj_-") || len(filepath.Base(a)) != len("my_proj_-")+16 {
		t.Errorf("DefaultStoreDir: %s", a)
	}
	b, err := DefaultStoreDir("/y/my proj!")
	if err != nil || b == a {
		t.Errorf("two work trees of one name share %s (%v)", b, err)
	}
	long, err := DefaultStoreDir("/x/" + strings.Repeat("n", 100))
	if err != nil || len(filepath.Base(long)) != 40+1+16 {
		t.Errorf("long name: %s %v", long, err)
	}
	t.Setenv("TURNBACK_STORE", "rel/store")
	s, err := DefaultStoreDir("/x/p")
	if wd, _ := os.Getwd(); err != nil || s != filepath.Join(wd, "rel", "store") {
		t.Errorf("with TURNBACK_STORE: %s %v", s, err)
	}
}

// TestLocate: a command run below a work tree finds it, as git finds
// .git; an explicit store names its work tree when the command runs
// inside it.
func TestLocate(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("TURNBACK_STORE", "")
	wt, err := Canonical(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(wt, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, _, err := Locate(sub, ""); err != nil || got != sub {
		t.Errorf("no store yet: %s %v, want %s", got, err, sub)
	}
	store, err := DefaultStoreDir(wt)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := RecordWorkTree(store, wt); err != nil {
		t.Fatal(err)
	}
	if got, s, err := Locate(sub, ""); err != nil || got != wt || s != store {
		t.Errorf("below the work tree: %s %s %v, want %s %s", got, s, err, wt, store)
	}
	explicit := filepath.Join(t.TempDir(), "s")
	if err := os.MkdirAll(explicit, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := RecordWorkTree(explicit, wt); err != nil {
		t.Fatal(err)
	}
	if got, s, err := Locate(sub, explicit); err != nil || got != wt || s != explicit {
		t.Errorf("explicit store: %s %s %v", got, s, err)
	}
	other, _ := Canonical(t.TempDir())
	if got, s, err := Locate(other, explicit); err != nil || got != other || s != explicit {
		t.Errorf("explicit store, outside its work tree: %s %s %v", got, s, err)
	}
	if _, _, err := Locate(filepath.Join(wt, "missing"), ""); err == nil {
		t.Error("Locate of a missing directory: no error")
	}
}

// TestCheckLocation: the checks before a store is made. It creates
// nothing.
func TestCheckLocation(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("TURNBACK_STORE", "")
	wt, err := Canonical(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "owned")
	put(t, other, map[string]string{"worktree": "/elsewhere\n"})
	marked := filepath.Join(t.TempDir(), "marked")
	put(t, marked, map[string]string{"db/": ""})
	if err := WriteMarker(marked, "/elsewhere"); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(wt, link); err != nil {
		t.Fatal(err)
	}
	stranger := t.TempDir()
	put(t, stranger, map[string]string{"notes.txt": "x"})
	for _, c := range []struct {
		name, store string
		err         error
		text        string
	}{
		{"default store", "", nil, ""},
		{"a new store", filepath.Join(t.TempDir(), "new", "s"), nil, ""},
		{"inside the work tree", filepath.Join(wt, ".store"), model.ErrStoreInWorkTree, "inside the work tree"},
		{"inside, through a symlink", filepath.Join(link, "s"), model.ErrStoreInWorkTree, ""},
		{"another work tree's note", other, nil, "belongs to work tree /elsewhere"},
		{"another work tree's marker", marked, nil, "belongs to work tree /elsewhere"},
		{"another program's folder", stranger, model.ErrNotStore, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := listing(t, wt)
			err := CheckLocation(wt, c.store, false)
			if after := listing(t, wt); !mapsEqual(before, after) {
				t.Errorf("CheckLocation wrote into the work tree")
			}
			if c.err == nil && c.text == "" {
				if err != nil {
					t.Fatalf("CheckLocation: %v", err)
				}
				return
			}
			if err == nil || c.err != nil && !errors.Is(err, c.err) || !strings.Contains(err.Error(), c.text) {
				t.Fatalf("CheckLocation: %v, want %v %q", err, c.err, c.text)
			}
		})
	}
	if err := CheckLocation("/", "", false); !errors.Is(err, model.ErrScope) {
		t.Errorf("CheckLocation of /: %v", err)
	}
}

// TestResolveExisting: symlinks in the existing part of a path are
// resolved; the missing rest is kept as given.
func TestResolveExisting(t *testing.T) {
	real, err := Canonical(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "l")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	got, err := ResolveExisting(filepath.Join(link, "a", "b"))
	if err != nil || got != filepath.Join(real, "a", "b") {
		t.Errorf("ResolveExisting: %s %v", got, err)
	}
}
