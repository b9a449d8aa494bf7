package pathstate

import (
	"context"
	"fmt"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/umask"
	"github.com/turnback/turnback/manifest"
)

// TestForeignTarget: what a restore writes for an entry of a pulled
// state, as root and not, for several umasks. Never group or other
// write nor a bit the umask clears, never the remote's owner, never
// more than the remote recorded; a symlink's mode is left as recorded.
func TestForeignTarget(t *testing.T) {
	oldMask, oldOwners := ForeignUmask, OwnersMatter
	defer func() { ForeignUmask, OwnersMatter = oldMask, oldOwners }()
	file := &manifest.Entry{Name: "f", Kind: manifest.KindFile, Mode: 0o6777, Owned: true, UID: 7, GID: 8}
	dir := &manifest.Entry{Name: "d", Kind: manifest.KindDir, Mode: 0o1777, Owned: true}
	link := &manifest.Entry{Name: "l", Kind: manifest.KindSymlink, Mode: 0o777}
	fifo := &manifest.Entry{Name: "p", Kind: manifest.KindFIFO, Mode: 0o640}
	for _, c := range []struct {
		root  bool
		umask uint32
		e     *manifest.Entry
		want  uint32
	}{
		{true, 0o022, file, 0o6755}, // as root the restore leaves special bits off (unowned)
		{false, 0o022, file, 0o755},
		{false, 0o002, file, 0o755}, // never group or other write
		{false, 0, file, 0o755},
		{false, 0o027, file, 0o750},
		{false, 0o077, file, 0o700},
		{true, 0o022, dir, 0o1755},
		{false, 0o002, dir, 0o755},
		{false, 0o077, link, 0o777},
		{false, 0o022, fifo, 0o640},
		{false, 0o027, fifo, 0o640},
		{false, 0o077, fifo, 0o600},
	} {
		t.Run(fmt.Sprintf("%v-%03o-%s", c.root, c.umask, c.e.Name), func(t *testing.T) {
			ForeignUmask, OwnersMatter = umask.Pulled(c.umask), c.root
			before := *c.e
			got := ForeignTarget(c.e)
			if got.Mode != c.want || got.Owned || got.UID != 0 || got.GID != 0 {
				t.Errorf("ForeignTarget(%+v) = %+v, want mode %04o, no owner", before, *got, c.want)
			}
			if *c.e != before {
				t.Errorf("ForeignTarget changed its argument: %+v", *c.e)
			}
			if got.Mode&^c.e.Mode != 0 {
				t.Errorf("ForeignTarget added bits: %04o from %04o", got.Mode, c.e.Mode)
			}
		})
	}
	if ForeignTarget(nil) != nil {
		t.Error("ForeignTarget(nil) is not nil")
	}
}

// TestForeignOwner: the owner goes, the rest stays, the argument is
// not changed.
func TestForeignOwner(t *testing.T) {
	e := &manifest.Entry{Name: "f", Kind: manifest.KindFile, Mode: 0o4755, Owned: true, UID: 7, GID: 8}
	got := ForeignOwner(e)
	want := manifest.Entry{Name: "f", Kind: manifest.KindFile, Mode: 0o4755}
	if *got != want || !e.Owned || e.UID != 7 {
		t.Errorf("ForeignOwner = %+v (argument now %+v), want %+v", *got, *e, want)
	}
	unowned := &manifest.Entry{Name: "g", Kind: manifest.KindFile, Mode: 0o644}
	if ForeignOwner(unowned) != unowned || ForeignOwner(nil) != nil {
		t.Error("ForeignOwner copied an entry without an owner")
	}
}

// TestWrittenFrom: the folder's entry is what a restore with one of the
// masks wrote for a pulled entry, whatever its owner.
func TestWrittenFrom(t *testing.T) {
	old := OwnersMatter
	defer func() { OwnersMatter = old }()
	OwnersMatter = true
	e := &manifest.Entry{Kind: manifest.KindFile, Mode: 0o777, Size: 1, Hash: hashOf("a"), Owned: true, UID: 7, GID: 8}
	cur := func(mode uint32, f func(*manifest.Entry)) *manifest.Entry {
		c := &manifest.Entry{Kind: manifest.KindFile, Mode: mode, Size: 1, Hash: hashOf("a"), Owned: true, UID: 1, GID: 1}
		if f != nil {
			f(c)
		}
		return c
	}
	masks := umask.Masks{0o022, 0o077}
	for _, c := range []struct {
		name string
		cur  *manifest.Entry
		want bool
	}{
		{"absent", nil, false},
		{"first mask", cur(0o755, nil), true},
		{"second mask", cur(0o700, nil), true},
		{"no mask used", cur(0o750, nil), false},
		{"as recorded", cur(0o777, nil), false},
		{"other content", cur(0o755, func(c *manifest.Entry) { c.Hash = hashOf("b") }), false},
		{"other kind", cur(0o755, func(c *manifest.Entry) { c.Kind = manifest.KindFIFO }), false},
		{"a bit e lacks", cur(0o4755, nil), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := WrittenFrom(c.cur, e, masks); got != c.want {
				t.Errorf("WrittenFrom(%+v) = %v, want %v", c.cur, got, c.want)
			}
		})
	}
	link := &manifest.Entry{Kind: manifest.KindSymlink, Mode: 0o777, Target: "x"}
	if WrittenFrom(link, link, masks) {
		t.Error("a symlink counts as written with a mask")
	}
}

// TestWithOwners: a pulled state made the folder's takes the folder's
// owners, and modes as the folder holds them or as a restore here wrote
// them; a path the folder lacks loses its owner, its special bits and
// what the umask clears.
func TestWithOwners(t *testing.T) {
	oldMask, oldOwners := ForeignUmask, OwnersMatter
	defer func() { ForeignUmask, OwnersMatter = oldMask, oldOwners }()
	ForeignUmask, OwnersMatter = umask.Pulled(0o022), false
	ctx := context.Background()
	s, err := cas.NewStore(cas.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	l := manifest.NewStoreLoader(s)
	tree := func(es map[string]*manifest.Entry) cas.Hash {
		t.Helper()
		w := s.NewWriter()
		defer w.Cancel()
		h, err := manifest.Edit(ctx, l, w, manifest.EmptyTreeHash(), es)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		return h
	}
	file := func(content string, mode uint32, uid uint32) *manifest.Entry {
		return &manifest.Entry{Kind: manifest.KindFile, Mode: mode, Size: int64(len(content)), Hash: hashOf(content), Owned: true, UID: uid, GID: uid}
	}
	pulled := tree(map[string]*manifest.Entry{
		"same":    file("a", 0o4777, 7), // the folder holds it: its owner and mode
		"edited":  file("b", 0o777, 7),  // other content: the folder's owner, masked mode
		"missing": file("c", 0o6755, 7), // the folder lacks it: no owner
		"written": file("d", 0o777, 7),  // as a restore with 077 wrote it
		"plain":   {Kind: manifest.KindFile, Mode: 0o644, Size: 1, Hash: hashOf("e")},
	})
	folder := tree(map[string]*manifest.Entry{
		"same":    file("a", 0o4700, 1),
		"edited":  file("x", 0o777, 1),
		"written": file("d", 0o700, 1),
		"plain":   {Kind: manifest.KindFile, Mode: 0o600, Size: 1, Hash: hashOf("e")},
	})
	w := s.NewWriter()
	defer w.Cancel()
	got, err := WithOwners(ctx, l, w, pulled, folder, umask.Masks{0o077})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]*manifest.Entry{
		"same":    file("a", 0o4700, 1),
		"edited":  file("b", 0o755, 1),
		"missing": {Kind: manifest.KindFile, Mode: 0o755, Size: 1, Hash: hashOf("c")},
		"written": file("d", 0o700, 1),
		"plain":   {Kind: manifest.KindFile, Mode: 0o644, Size: 1, Hash: hashOf("e")},
	} {
		e, err := manifest.Find(ctx, l, got, p)
		if err != nil {
			t.Fatal(err)
		}
		want.Name = p
		if e == nil || *e != *want {
			t.Errorf("%s: %+v, want %+v", p, e, want)
		}
	}
	// Nothing to change: the state itself.
	same, err := WithOwners(ctx, l, w, folder, folder, nil)
	if err != nil || same != folder {
		t.Errorf("WithOwners of the folder's own state = %v, %v; want it unchanged", same, err)
	}
}
