package manifest

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
)

// sampleTreeV2 exercises every field of version 2: owners (multi-byte
// ids, the largest), a fifo, a link group (its first member and a
// later one) next to entries without an owner.
func sampleTreeV2() *Tree {
	return &Tree{Entries: []Entry{
		{Name: "a.txt", Kind: KindFile, Mode: 0o644, Size: 5, Hash: sum("hello"), Owned: true, UID: 1000, GID: 1000, LinkTo: "a.txt"},
		{Name: "b.txt", Kind: KindFile, Mode: 0o644, Size: 5, Hash: sum("hello"), Owned: true, UID: 1000, GID: 1000, LinkTo: "a.txt"},
		{Name: "big", Kind: KindFile, Mode: 0o600, Size: 1 << 40, Uncaptured: true, Hash: sum("big"), Owned: true, UID: 1<<32 - 2, GID: 0, LinkTo: "d/big"},
		{Name: "d", Kind: KindDir, Mode: 0o2775, Hash: sum("tree d"), Owned: true, UID: 0, GID: 50},
		{Name: "l", Kind: KindSymlink, Mode: 0o777, Size: 1, Target: "a", Owned: true, UID: 7, GID: 8},
		{Name: "legacy", Kind: KindFile, Mode: 0o4755, Size: 1, Hash: sum("x")},
		{Name: "pipe", Kind: KindFIFO, Mode: 0o620, Owned: true, UID: 1000, GID: 5},
		{Name: "u", Kind: KindDir, Mode: 0o755, Uncaptured: true, Files: 300, Owned: true, UID: 1, GID: 1},
	}}
}

func TestGoldenV2(t *testing.T) {
	b, err := sampleTreeV2().Encode()
	if err != nil {
		t.Fatal(err)
	}
	if b[len(Magic)] != Version2 {
		t.Fatalf("version byte %d, want 2", b[len(Magic)])
	}
	checkGolden(t, "tree-v2.golden", b, sampleTreeV2())
}

// TestV1StaysV1: a tree with no version-2 field still encodes as
// version 1 byte for byte (the golden file of version 1 is unchanged),
// so snapshots of trees written before keep their ids; adding one owner
// makes it version 2.
func TestV1StaysV1(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "tree-v1.golden"))
	if err != nil {
		t.Fatal(err)
	}
	v1, _ := hex.DecodeString(strings.Join(strings.Fields(string(raw)), ""))
	tr, err := Decode(v1)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tr.Entries {
		if e.Owned || e.LinkTo != "" || e.Kind == KindFIFO {
			t.Fatalf("v1 entry %q decoded with v2 fields: %+v", e.Name, e)
		}
	}
	again, _ := tr.Encode()
	if !bytes.Equal(again, v1) {
		t.Fatal("v1 tree re-encodes differently")
	}
	tr.Entries[0].Owned, tr.Entries[0].UID = true, 1000
	v2, err := tr.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if v2[len(Magic)] != Version2 {
		t.Fatal("owned entry did not make version 2")
	}
	if back, err := Decode(v2); err != nil || !reflect.DeepEqual(back, tr) {
		t.Fatalf("v2 round trip: %v", err)
	}
}

func TestValidateRejectsV2(t *testing.T) {
	file := Entry{Name: "f", Kind: KindFile, Mode: 0o644, Size: 1, Hash: sum("x"), Owned: true, UID: 1, GID: 2}
	fifo := Entry{Name: "p", Kind: KindFIFO, Mode: 0o644}
	with := func(e Entry, f func(*Entry)) []Entry { f(&e); return []Entry{e} }
	cases := []struct {
		name    string
		entries []Entry
		want    string
	}{
		{"uid without owned", with(file, func(e *Entry) { e.Owned = false }), "owner ids without"},
		{"gid without owned", with(file, func(e *Entry) { e.Owned, e.UID = false, 0 }), "owner ids without"},
		{"link on dir", with(file, func(e *Entry) { e.Kind, e.Size, e.LinkTo = KindDir, 0, "f" }), "link group on a dir"},
		{"link on symlink", with(file, func(e *Entry) { e.Kind, e.Hash, e.Target, e.LinkTo = KindSymlink, cas.Hash{}, "t", "f" }), "link group on a symlink"},
		{"link on fifo", with(fifo, func(e *Entry) { e.LinkTo = "p" }), "link group on a fifo"},
		{"link dotdot", with(file, func(e *Entry) { e.LinkTo = "a/../b" }), "link group path"},
		{"link absolute", with(file, func(e *Entry) { e.LinkTo = "/etc/passwd" }), "link group path"},
		{"link trailing slash", with(file, func(e *Entry) { e.LinkTo = "a/" }), "link group path"},
		{"link nul", with(file, func(e *Entry) { e.LinkTo = "a\x00" }), "link group path"},
		{"link long", with(file, func(e *Entry) { e.LinkTo = strings.Repeat("a/", 2048) + "b" }), "longer than"},
		{"fifo size", with(fifo, func(e *Entry) { e.Size = 1 }), "fifo with size"},
		{"fifo hash", with(fifo, func(e *Entry) { e.Hash = sum("x") }), "fifo with a hash"},
		{"fifo target", with(fifo, func(e *Entry) { e.Target = "x" }), "fifo with a symlink target"},
		{"fifo uncaptured", with(fifo, func(e *Entry) { e.Uncaptured = true }), "uncaptured fifo"},
		{"fifo files", with(fifo, func(e *Entry) { e.Files = 2 }), "fifo with a file count"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkInvalid(t, c.entries, c.want) })
	}
}

func TestDecodeRejectsV2(t *testing.T) {
	const hdr = "TBTR\x02"
	h := sum("x")
	hb := h[:]
	cases := []struct {
		name string
		in   []byte
		want string
	}{
		{"no v2 field", enc(hdr, uv(1), uv(1), "a", 1, 0, uv(0), uv(1), hb), "not canonical"},
		{"uid too big", enc(hdr, uv(1), uv(1), "a", 1, 4, uv(0), uv(1), uv(1<<32), uv(0), hb), "uid 4294967296 exceeds"},
		{"gid too big", enc(hdr, uv(1), uv(1), "a", 1, 4, uv(0), uv(1), uv(0), uv(1<<32), hb), "gid 4294967296 exceeds"},
		{"truncated uid", enc(hdr, uv(1), uv(1), "a", 1, 4, uv(0), uv(1)), "truncated uid"},
		{"truncated gid", enc(hdr, uv(1), uv(1), "a", 1, 4, uv(0), uv(1), uv(3)), "truncated gid"},
		{"non-minimal uid", enc(hdr, uv(1), uv(1), "a", 1, 4, uv(0), uv(1), 0x80, 0x00, uv(0), hb), "non-minimal varint for uid"},
		{"empty link", enc(hdr, uv(1), uv(1), "a", 1, 8, uv(0), uv(1), hb, uv(0)), "empty link group path"},
		{"truncated link", enc(hdr, uv(1), uv(1), "a", 1, 8, uv(0), uv(1), hb, uv(5), "ab"), "truncated link group path"},
		{"long link", enc(hdr, uv(1), uv(1), "a", 1, 8, uv(0), uv(1), hb, uv(4097)), "link group path length 4097 exceeds"},
		{"bad link", enc(hdr, uv(1), uv(1), "a", 1, 8, uv(0), uv(1), hb, uv(2), ".."), "link group path"},
		{"link on dir", enc(hdr, uv(1), uv(1), "d", 2, 8, uv(0), uv(0), hb, uv(1), "d"), "link group on a dir"},
		{"fifo size", enc(hdr, uv(1), uv(1), "p", 4, 0, uv(0), uv(3)), "fifo with size"},
		{"fifo uncaptured", enc(hdr, uv(1), uv(1), "p", 4, 1, uv(0), uv(0)), "uncaptured fifo"},
		{"fifo trailing hash", enc(hdr, uv(1), uv(1), "p", 4, 0, uv(0), uv(0), hb), "trailing"},
		{"kind 5", enc(hdr, uv(1), uv(1), "a", 5, 0, uv(0), uv(0)), "unknown kind 5"},
		{"flag 0x10", enc(hdr, uv(1), uv(1), "a", 1, 0x14, uv(0), uv(0), uv(0), uv(0), hb), "unknown flags"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := Decode(c.in)
			if tr != nil || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Decode(%x) = %v, %v; want ErrMalformed mentioning %q", c.in, tr, err, c.want)
			}
		})
	}
	// And the edges it accepts.
	for _, in := range [][]byte{
		enc(hdr, uv(1), uv(1), "p", 4, 0, uv(0), uv(0)),                                            // a bare fifo
		enc(hdr, uv(1), uv(1), "a", 1, 4, uv(0), uv(1), uv(1<<32-1), uv(1<<32-1), hb),              // largest ids
		enc(hdr, uv(1), uv(1), "a", 1, 9, uv(0), uv(1), uv(4096), strings.Repeat("n/", 2047)+"nn"), // uncaptured, unhashed, linked
		enc(hdr, uv(2), uv(1), "a", 1, 0, uv(0), uv(1), hb, uv(1), "p", 4, 0, uv(0), uv(0)),        // one v1 entry, one fifo
	} {
		tr, err := Decode(in)
		if err != nil {
			t.Fatalf("Decode(%x): %v", in, err)
		}
		if out, err := tr.Encode(); err != nil || !bytes.Equal(out, in) {
			t.Fatalf("re-encode of %x = %x, %v", in, out, err)
		}
	}
}

// TestDiffOwner: an owner change is reported as ModeChanged (a chown
// alone is a change); an entry without a recorded owner (a tree written
// before owners were) matches any owner; LinkTo alone is no change.
func TestDiffOwner(t *testing.T) {
	ctx := context.Background()
	file := Entry{Name: "f", Kind: KindFile, Mode: 0o644, Size: 1, Hash: sum("x"), Owned: true, UID: 1000, GID: 1000}
	dir := Entry{Name: "d", Kind: KindDir, Mode: 0o755, Hash: EmptyTreeHash(), Owned: true, UID: 1000, GID: 1000}
	udir := Entry{Name: "u", Kind: KindDir, Mode: 0o755, Uncaptured: true, Files: 300, Owned: true, UID: 1000, GID: 1000}
	fifo := Entry{Name: "p", Kind: KindFIFO, Mode: 0o644, Owned: true, UID: 1000, GID: 1000}
	link := Entry{Name: "s", Kind: KindSymlink, Mode: 0o777, Size: 1, Target: "f", Owned: true, UID: 1000, GID: 1000}
	chg := func(e Entry, f func(*Entry)) Entry { f(&e); return e }
	cases := []struct {
		name string
		a, b Entry
		want string // "" for no change
	}{
		{"same", file, file, ""},
		{"chown file", file, chg(file, func(e *Entry) { e.UID = 0 }), "mode f"},
		{"chgrp file", file, chg(file, func(e *Entry) { e.GID = 0 }), "mode f"},
		{"chown dir", dir, chg(dir, func(e *Entry) { e.UID = 0 }), "mode d"},
		{"chown uncaptured dir", udir, chg(udir, func(e *Entry) { e.UID = 0 }), "modified u"},
		{"chown fifo", fifo, chg(fifo, func(e *Entry) { e.GID = 7 }), "mode p"},
		{"chmod fifo", fifo, chg(fifo, func(e *Entry) { e.Mode = 0o600 }), "mode p"},
		{"lchown symlink", link, chg(link, func(e *Entry) { e.UID = 0 }), "mode s"},
		{"owner unknown before", chg(file, func(e *Entry) { e.Owned, e.UID, e.GID = false, 0, 0 }), file, ""},
		{"owner unknown after", file, chg(file, func(e *Entry) { e.Owned, e.UID, e.GID = false, 0, 0 }), ""},
		{"owner unknown uncaptured dir", chg(udir, func(e *Entry) { e.Owned, e.UID, e.GID = false, 0, 0 }), udir, ""},
		{"owner unknown dir", chg(dir, func(e *Entry) { e.Owned, e.UID, e.GID = false, 0, 0 }), dir, ""},
		{"became a link", file, chg(file, func(e *Entry) { e.LinkTo = "g" }), ""},
		{"link group moved", chg(file, func(e *Entry) { e.LinkTo = "a" }), chg(file, func(e *Entry) { e.LinkTo = "f" }), ""},
		{"chown and edit", file, chg(file, func(e *Entry) { e.UID, e.Hash = 0, sum("y") }), "modified f"},
		{"file became fifo", chg(fifo, func(e *Entry) { e.Name, e.Kind, e.Size, e.Hash = "p", KindFile, 1, sum("x") }), fifo, "type p"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := memLoader{}
			ha := l.put(t, &Tree{Entries: []Entry{c.a}})
			hb := l.put(t, &Tree{Entries: []Entry{c.b}})
			var got []string
			err := Diff(ctx, l, ha, hb, func(ch Change) error { got = append(got, ch.String()); return nil })
			if err != nil {
				t.Fatal(err)
			}
			want := []string{}
			if c.want != "" {
				want = []string{c.want}
			}
			if got == nil {
				got = []string{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Diff = %q, want %q", got, want)
			}
		})
	}
}

type memLoader map[cas.Hash]*Tree

func (m memLoader) put(t *testing.T, tr *Tree) cas.Hash {
	h, _, err := tr.Hash()
	if err != nil {
		t.Fatal(err)
	}
	m[h] = tr
	return h
}

func (m memLoader) LoadTree(_ context.Context, h cas.Hash) (*Tree, error) {
	if t, ok := m[h]; ok {
		return t, nil
	}
	return nil, errors.New("no such tree")
}
