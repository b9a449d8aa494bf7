package pathstate

import (
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
)

func hashOf(s string) cas.Hash {
	var h cas.Hash
	copy(h[:], s)
	return h
}

// TestSame: which entries a path may hold to need no change, with and
// without owners counted.
func TestSame(t *testing.T) {
	old := OwnersMatter
	defer func() { OwnersMatter = old }()
	file := manifest.Entry{Kind: manifest.KindFile, Mode: 0o644, Size: 3, Hash: hashOf("a"), Owned: true, UID: 1, GID: 1}
	with := func(f func(e *manifest.Entry)) *manifest.Entry {
		e := file
		f(&e)
		return &e
	}
	big := with(func(e *manifest.Entry) { e.Hash, e.Uncaptured = cas.Hash{}, true })
	dir := &manifest.Entry{Kind: manifest.KindDir, Mode: 0o755, Hash: hashOf("d")}
	link := &manifest.Entry{Kind: manifest.KindSymlink, Mode: 0o777, Target: "x"}
	fifo := &manifest.Entry{Kind: manifest.KindFIFO, Mode: 0o600}
	for _, c := range []struct {
		name      string
		owners    bool
		cur, want *manifest.Entry
		same      bool
	}{
		{"both absent", false, nil, nil, true},
		{"absent and present", false, nil, &file, false},
		{"present and absent", false, &file, nil, false},
		{"equal files", true, &file, with(func(*manifest.Entry) {}), true},
		{"other content", false, &file, with(func(e *manifest.Entry) { e.Hash = hashOf("b") }), false},
		{"other size", false, &file, with(func(e *manifest.Entry) { e.Size = 4 }), false},
		{"other mode", false, &file, with(func(e *manifest.Entry) { e.Mode = 0o600 }), false},
		{"other kind", false, &file, dir, false},
		{"other owner, not root", false, &file, with(func(e *manifest.Entry) { e.UID = 2 }), true},
		{"other owner, root", true, &file, with(func(e *manifest.Entry) { e.UID = 2 }), false},
		{"owner not recorded, root", true, &file, with(func(e *manifest.Entry) { e.Owned, e.UID = false, 2 }), true},
		{"both uncaptured, unhashed", false, big, with(func(e *manifest.Entry) { e.Hash, e.Uncaptured = cas.Hash{}, true }), true},
		{"uncaptured and unhashed", false, big, &file, false},
		{"directories: contents are other paths", false, dir, &manifest.Entry{Kind: manifest.KindDir, Mode: 0o755, Hash: hashOf("e")}, true},
		{"directories: mode", false, dir, &manifest.Entry{Kind: manifest.KindDir, Mode: 0o700}, false},
		{"directories: uncaptured", false, dir, &manifest.Entry{Kind: manifest.KindDir, Mode: 0o755, Uncaptured: true}, false},
		{"symlinks: target only", false, link, &manifest.Entry{Kind: manifest.KindSymlink, Mode: 0o755, Target: "x"}, true},
		{"symlinks: other target", false, link, &manifest.Entry{Kind: manifest.KindSymlink, Mode: 0o777, Target: "y"}, false},
		{"fifos: mode", false, fifo, &manifest.Entry{Kind: manifest.KindFIFO, Mode: 0o644}, false},
		{"fifos: equal", false, fifo, &manifest.Entry{Kind: manifest.KindFIFO, Mode: 0o600}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			OwnersMatter = c.owners
			if got := Same(c.cur, c.want); got != c.same {
				t.Errorf("Same(%+v, %+v) = %v, want %v", c.cur, c.want, got, c.same)
			}
		})
	}
}

// TestMetaReason: an owner change counts as an edit where owners
// matter; a mode change is left to the caller (not decided) unless it
// is only special bits a restore leaves off, which needs root.
func TestMetaReason(t *testing.T) {
	old := OwnersMatter
	defer func() { OwnersMatter = old }()
	left := &manifest.Entry{Kind: manifest.KindFile, Mode: 0o644, Size: 1, Hash: hashOf("a"), Owned: true, UID: 1, GID: 2}
	moved := *left
	moved.UID, moved.GID = 3, 4
	chmod := *left
	chmod.Mode = 0o600

	OwnersMatter = true
	why, decided := MetaReason(&moved, left)
	if want := "owner changed since (3:4, was 1:2)"; why != want || !decided {
		t.Errorf("owner change as root: %q, %v; want %q, true", why, decided, want)
	}
	OwnersMatter = false
	if why, decided := MetaReason(&moved, left); why != "" || decided {
		t.Errorf("owner change not as root: %q, %v; want undecided", why, decided)
	}
	if why, decided := MetaReason(&chmod, left); why != "" || decided {
		t.Errorf("permission change: %q, %v; want undecided", why, decided)
	}
}
