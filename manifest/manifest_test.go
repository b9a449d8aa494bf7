package manifest

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
)

var update = flag.Bool("update", false, "rewrite testdata/tree-v1.golden")

func sum(s string) cas.Hash { return cas.Sum([]byte(s)) }

// sampleTree exercises every kind, the uncaptured flag, multi-byte varints
// and special mode bits. Its encoding is the golden file.
func sampleTree() *Tree {
	return &Tree{Entries: []Entry{
		{Name: ".env", Kind: KindFile, Mode: 0o600, Size: 12, Hash: sum("SECRET=hunter2")},
		{Name: "README.md", Kind: KindFile, Mode: 0o644, Size: 0, Hash: sum("")},
		{Name: "big.iso", Kind: KindFile, Mode: 0o644, Size: 5 << 30, Uncaptured: true},
		{Name: "bin", Kind: KindDir, Mode: 0o755, Hash: sum("tree bin")},
		{Name: "data", Kind: KindDir, Mode: 0o2775, Uncaptured: true, Files: 1234},
		{Name: "latest", Kind: KindSymlink, Mode: 0o777, Size: 12, Target: "../v1.2/out/"},
		{Name: "run.sh", Kind: KindFile, Mode: 0o4755, Size: 300, Hash: sum("#!/bin/sh\n")},
		{Name: "tmp", Kind: KindDir, Mode: 0o1777, Hash: EmptyTreeHash()},
		{Name: "é", Kind: KindSymlink, Mode: 0o777, Size: 4, Target: "/etc"},
	}}
}

func TestGolden(t *testing.T) {
	b, err := sampleTree().Encode()
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "tree-v1.golden", b, sampleTree())
}

// checkGolden asserts that encoding b is the one in testdata/name (written
// with -update) and decodes back to tr.
func checkGolden(t *testing.T, name string, b []byte, tr *Tree) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(hexLines(b)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	want, err := hex.DecodeString(strings.Join(strings.Fields(string(raw)), ""))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want) {
		t.Fatalf("encoding changed:\n got %x\nwant %x", b, want)
	}
	got, err := Decode(want)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, tr) {
		t.Fatalf("decoded golden differs:\n got %+v\nwant %+v", got, tr)
	}
}

func hexLines(b []byte) string {
	s := hex.EncodeToString(b)
	var out strings.Builder
	for len(s) > 64 {
		out.WriteString(s[:64] + "\n")
		s = s[64:]
	}
	out.WriteString(s + "\n")
	return out.String()
}

func TestEmptyTree(t *testing.T) {
	h, b, err := (&Tree{}).Hash()
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte("TBTR\x01\x00"); !bytes.Equal(b, want) {
		t.Fatalf("empty encoding %x, want %x", b, want)
	}
	if h != EmptyTreeHash() || h != cas.Sum(b) {
		t.Fatalf("EmptyTreeHash %s, want %s", EmptyTreeHash(), h)
	}
	var nilTree *Tree
	if b2, err := nilTree.Encode(); err != nil || !bytes.Equal(b2, b) {
		t.Fatalf("nil tree encodes to %x, %v", b2, err)
	}
}

func TestRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		tr := randomTree(r, r.IntN(20))
		b, err := tr.Encode()
		if err != nil {
			t.Fatalf("tree %d: %v", i, err)
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("tree %d: decode: %v", i, err)
		}
		if len(tr.Entries) == 0 {
			tr.Entries = []Entry{}
		}
		if !reflect.DeepEqual(got, tr) {
			t.Fatalf("tree %d: round trip differs:\n got %+v\nwant %+v", i, got, tr)
		}
		b2, _ := got.Encode()
		if !bytes.Equal(b, b2) {
			t.Fatalf("tree %d: re-encoding differs", i)
		}
	}
}

// randomTree returns a valid tree of up to n entries with random fields.
func randomTree(r *rand.Rand, n int) *Tree {
	seen := map[string]bool{}
	t := &Tree{}
	for range n {
		name := randString(r, 1+r.IntN(12), "abc.-_/\x00é")
		name = strings.NewReplacer("/", "s", "\x00", "z").Replace(name)
		if seen[name] || ValidName(name) != nil {
			continue
		}
		seen[name] = true
		e := Entry{Name: name, Kind: Kind(1 + r.IntN(4)), Mode: uint32(r.IntN(ModeMask + 1))}
		if r.IntN(2) == 0 {
			e.Owned, e.UID, e.GID = true, r.Uint32(), uint32(r.IntN(70000))
		}
		size := r.Int64N(MaxSize + 1)
		if r.IntN(2) == 0 {
			size = r.Int64N(300)
		}
		switch e.Kind {
		case KindFile:
			e.Size = size
			e.Uncaptured = r.IntN(3) == 0
			if !e.Uncaptured {
				e.Hash = sum(name)
			}
			if r.IntN(4) == 0 {
				e.LinkTo = "d/" + name
			}
		case KindDir:
			e.Uncaptured = r.IntN(3) == 0
			if e.Uncaptured {
				e.Files = size
			} else {
				e.Hash = sum("tree " + name)
			}
		case KindSymlink:
			e.Target = randString(r, 1+r.IntN(200), "ab/.")
			e.Size = int64(len(e.Target))
		}
		t.Entries = append(t.Entries, e)
	}
	t.Sort()
	return t
}

func randString(r *rand.Rand, n int, alphabet string) string {
	runes := []rune(alphabet)
	var b strings.Builder
	for range n {
		b.WriteRune(runes[r.IntN(len(runes))])
	}
	return b.String()
}

func TestValidName(t *testing.T) {
	for _, ok := range []string{"a", "...", ".git", "a b", "é", strings.Repeat("x", 255), "\\"} {
		if err := ValidName(ok); err != nil {
			t.Errorf("ValidName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "a/b", "/", "a\x00", strings.Repeat("x", 256)} {
		err := ValidName(bad)
		if err == nil || !strings.HasPrefix(err.Error(), "manifest: ") {
			t.Errorf("ValidName(%q) = %v, want a manifest: error", bad, err)
		}
	}
}

func TestValidateRejects(t *testing.T) {
	h := sum("x")
	file := Entry{Name: "f", Kind: KindFile, Mode: 0o644, Size: 1, Hash: h}
	dir := Entry{Name: "d", Kind: KindDir, Mode: 0o755, Hash: h}
	link := Entry{Name: "l", Kind: KindSymlink, Mode: 0o777, Size: 1, Target: "t"}
	with := func(e Entry, f func(*Entry)) []Entry { f(&e); return []Entry{e} }
	cases := []struct {
		name    string
		entries []Entry
		want    string
	}{
		{"empty name", with(file, func(e *Entry) { e.Name = "" }), "invalid name"},
		{"dot", with(file, func(e *Entry) { e.Name = "." }), "invalid name"},
		{"dotdot", with(dir, func(e *Entry) { e.Name = ".." }), "invalid name"},
		{"slash", with(file, func(e *Entry) { e.Name = "a/b" }), "invalid name"},
		{"nul", with(file, func(e *Entry) { e.Name = "a\x00" }), "invalid name"},
		{"long name", with(file, func(e *Entry) { e.Name = strings.Repeat("n", 256) }), "invalid name"},
		{"unsorted", []Entry{link, file}, "not sorted"},
		{"duplicate", []Entry{file, file}, "duplicate"},
		{"kind 0", with(file, func(e *Entry) { e.Kind = 0 }), "unknown kind"},
		{"kind 5", with(file, func(e *Entry) { e.Kind = 5 }), "unknown kind"},
		{"mode", with(file, func(e *Entry) { e.Mode = 0o10000 }), "mode"},
		{"go mode bits", with(dir, func(e *Entry) { e.Mode = 0x80000000 | 0o755 }), "mode"},
		{"negative size", with(file, func(e *Entry) { e.Size = -1 }), "size"},
		{"huge size", with(file, func(e *Entry) { e.Size = MaxSize + 1 }), "size"},
		{"negative files", with(dir, func(e *Entry) { e.Uncaptured, e.Hash, e.Files = true, cas.Hash{}, -1 }), "file count"},
		{"file target", with(file, func(e *Entry) { e.Target = "x" }), "target"},
		{"file files", with(file, func(e *Entry) { e.Files = 1 }), "file count"},
		{"uncaptured file files", with(file, func(e *Entry) { e.Uncaptured, e.Hash, e.Files = true, cas.Hash{}, 1 }), "file count"},
		{"file no hash", with(file, func(e *Entry) { e.Hash = cas.Hash{} }), "without a hash"},
		{"uncaptured dir hash", with(dir, func(e *Entry) { e.Uncaptured = true }), "with a hash"},
		{"dir size", with(dir, func(e *Entry) { e.Size = 4096 }), "dir with size"},
		{"dir target", with(dir, func(e *Entry) { e.Target = "x" }), "target"},
		{"dir no hash", with(dir, func(e *Entry) { e.Hash = cas.Hash{} }), "without a hash"},
		{"captured dir files", with(dir, func(e *Entry) { e.Files = 3 }), "file count"},
		{"uncaptured dir hash", with(dir, func(e *Entry) { e.Uncaptured, e.Files = true, 3 }), "with a hash"},
		{"uncaptured symlink", with(link, func(e *Entry) { e.Uncaptured = true }), "uncaptured symlink"},
		{"symlink hash", with(link, func(e *Entry) { e.Hash = h }), "hash"},
		{"symlink files", with(link, func(e *Entry) { e.Files = 1 }), "file count"},
		{"empty target", with(link, func(e *Entry) { e.Target, e.Size = "", 0 }), "empty symlink target"},
		{"nul target", with(link, func(e *Entry) { e.Target, e.Size = "a\x00", 2 }), "NUL"},
		{"long target", with(link, func(e *Entry) { e.Target = strings.Repeat("t", 4097); e.Size = 4097 }), "longer"},
		{"symlink size", with(link, func(e *Entry) { e.Size = 2 }), "symlink size"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkInvalid(t, c.entries, c.want) })
	}
	ok := &Tree{Entries: []Entry{dir, file, link}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid tree: %v", err)
	}
	if err := sampleTree().Validate(); err != nil {
		t.Fatalf("sample tree: %v", err)
	}
}

// enc builds raw encodings for the decoder tests. Arguments: string and
// []byte are copied, byte is one byte, uv is a minimal uvarint.
type uv uint64

func enc(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			b = append(b, p...)
		case []byte:
			b = append(b, p...)
		case byte:
			b = append(b, p)
		case int:
			b = append(b, byte(p))
		case uv:
			b = binary.AppendUvarint(b, uint64(p))
		default:
			panic("enc: bad part")
		}
	}
	return b
}

func TestDecodeRejects(t *testing.T) {
	const hdr = "TBTR\x01"
	h := sum("x")
	hb := h[:]
	file := func(name string) []byte { return enc(uv(len(name)), name, 1, 0, uv(0o644), uv(1), hb) }
	cases := []struct {
		name string
		in   []byte
		want string
	}{
		{"nil", nil, "truncated header"},
		{"short", []byte("TBT"), "truncated header"},
		{"magic", enc("XBTR\x01", uv(0)), "bad magic"},
		{"version 0", enc("TBTR\x00", uv(0)), "unsupported version"},
		{"version 3", enc("TBTR\x03", uv(0)), "unsupported version"},
		{"version 2 empty", enc("TBTR\x02", uv(0)), "not canonical"},
		{"no count", enc(hdr), "truncated entry count"},
		{"trailing", enc(hdr, uv(0), 0), "trailing"},
		{"trailing after entry", enc(hdr, uv(1), file("a"), 7), "trailing"},
		{"non-minimal count", enc(hdr, 0x80, 0x00), "non-minimal"},
		{"non-minimal count 2", enc(hdr, 0x81, 0x80, 0x00), "non-minimal"},
		{"overflow count", enc(hdr, bytes.Repeat([]byte{0xff}, 10), 0x01), "overflows"},
		{"overflow 10th byte", enc(hdr, bytes.Repeat([]byte{0x80}, 9), 0x02), "overflows"},
		{"absurd count", enc(hdr, uv(1<<40)), "does not fit"},
		{"count too big for data", enc(hdr, uv(7), file("a")), "does not fit"},
		{"count 1 no entry", enc(hdr, uv(1), bytes.Repeat([]byte{0}, 5)), "does not fit"},
		{"missing entry", enc(hdr, uv(3), file("a"), uv(1), "b", 1, 0, uv(0o644), uv(1)), "truncated hash"},
		{"empty name", enc(hdr, uv(1), uv(0), 1, 1, uv(0), uv(0), uv(0)), "invalid name"},
		{"name too long", enc(hdr, uv(1), uv(256), strings.Repeat("n", 256), 1, 1, 0, 0), "name length 256 exceeds"},
		{"truncated name", enc(hdr, uv(1), uv(9), "abcde"), "truncated name"},
		{"truncated name 2", enc(hdr, uv(1), uv(9), "abcdefgh"), "truncated name"},
		{"dot", enc(hdr, uv(1), file(".")), "invalid name"},
		{"dotdot", enc(hdr, uv(1), file("..")), "invalid name"},
		{"slash", enc(hdr, uv(1), file("a/b")), "invalid name"},
		{"nul name", enc(hdr, uv(1), file("a\x00")), "invalid name"},
		{"unsorted", enc(hdr, uv(2), file("b"), file("a")), "not sorted"},
		{"duplicate", enc(hdr, uv(2), file("a"), file("a")), "duplicate"},
		{"kind 0", enc(hdr, uv(1), uv(1), "a", 0, 0, uv(0), uv(0), hb), "unknown kind 0"},
		{"fifo in v1", enc(hdr, uv(1), uv(1), "a", 4, 0, uv(0), uv(0)), "unknown kind 4 in a version 1 tree"},
		{"owned flag in v1", enc(hdr, uv(1), uv(1), "a", 1, 4, uv(0), uv(0), uv(1), uv(1), hb), "unknown flags 0x4 in a version 1"},
		{"linked flag in v1", enc(hdr, uv(1), uv(1), "a", 1, 8, uv(0), uv(0), hb, uv(1), "b"), "unknown flags 0x8 in a version 1"},
		{"flag 2", enc(hdr, uv(1), uv(1), "a", 1, 2, uv(0), uv(0), hb), "hashed flag"},
		{"flag 0x10", enc(hdr, uv(1), uv(1), "a", 1, 0x10, uv(0), uv(0), hb), "unknown flags"},
		{"flag 0x80", enc(hdr, uv(1), uv(1), "a", 1, 0x81, uv(0), uv(0), hb), "unknown flags"},
		{"mode", enc(hdr, uv(1), uv(1), "a", 1, 0, uv(0o10000), uv(0), hb), "mode 4096 exceeds"},
		{"non-minimal mode", enc(hdr, uv(1), uv(1), "a", 1, 0, 0xa4, 0x83, 0x00, uv(0), hb), "non-minimal varint for mode"},
		{"non-minimal size", enc(hdr, uv(1), uv(1), "a", 1, 0, uv(0), 0x80, 0x00, hb), "non-minimal varint for size"},
		{"non-minimal name length", enc(hdr, uv(1), 0x81, 0x00, "a", 1, 0, uv(0), uv(0), hb), "non-minimal"},
		{"size", enc(hdr, uv(1), uv(1), "a", 1, 0, uv(0), uv(MaxSize+1), hb), "size 4611686018427387905 exceeds"},
		{"truncated hash", enc(hdr, uv(1), uv(1), "a", 1, 0, uv(0), uv(0), hb[:31]), "truncated hash"},
		{"zero file hash", enc(hdr, uv(1), uv(1), "a", 1, 0, uv(0), uv(0), make([]byte, 32)), "captured file without a hash"},
		{"zero dir hash", enc(hdr, uv(1), uv(1), "d", 2, 0, uv(0), uv(0), make([]byte, 32)), "captured dir without a hash"},
		{"dir size", enc(hdr, uv(1), uv(1), "d", 2, 0, uv(0), uv(1), hb), "dir with size"},
		{"uncaptured dir size", enc(hdr, uv(1), uv(1), "d", 2, 1, uv(0), uv(1), uv(5)), "dir with size"},
		{"files too big", enc(hdr, uv(1), uv(1), "d", 2, 1, uv(0), uv(0), uv(MaxSize+1)), "file count"},
		{"truncated files", enc(hdr, uv(1), uv(1), "d", 2, 1, uv(0), uv(0), 0x80), "truncated file count"},
		{"uncaptured symlink", enc(hdr, uv(1), uv(1), "l", 3, 1, uv(0o777), uv(1), uv(1), "t"), "uncaptured symlink"},
		{"symlink size", enc(hdr, uv(1), uv(1), "l", 3, 0, uv(0o777), uv(2), uv(1), "t"), "symlink size 2"},
		{"empty target", enc(hdr, uv(1), uv(1), "l", 3, 0, uv(0o777), uv(0), uv(0), "pad"), "empty symlink target"},
		{"nul target", enc(hdr, uv(1), uv(1), "l", 3, 0, uv(0o777), uv(2), uv(2), "a\x00"), "NUL"},
		{"long target", enc(hdr, uv(1), uv(1), "l", 3, 0, uv(0o777), uv(4097), uv(4097), strings.Repeat("t", 4097)), "target length 4097 exceeds"},
		{"truncated target", enc(hdr, uv(1), uv(1), "l", 3, 0, uv(0o777), uv(20), uv(20), "short"), "truncated target"},
		{"uncaptured file hash", enc(hdr, uv(1), uv(1), "a", 1, 1, uv(0), uv(0), hb), "trailing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := Decode(c.in)
			if tr != nil || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Decode(%x) = %v, %v; want ErrMalformed mentioning %q", c.in, tr, err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "manifest: malformed tree: ") {
				t.Fatalf("error %q lacks the prefix", err)
			}
		})
	}
}

func TestDecodeAcceptsEdges(t *testing.T) {
	const hdr = "TBTR\x01"
	for _, in := range [][]byte{
		enc(hdr, uv(0)),
		enc(hdr, uv(1), uv(1), "a", 1, 1, uv(0o7777), uv(MaxSize)),                    // uncaptured file, max mode and size
		enc(hdr, uv(1), uv(255), strings.Repeat("n", 255), 2, 1, uv(0), uv(0), uv(0)), // uncaptured dir, 0 files
		enc(hdr, uv(1), uv(1), "l", 3, 0, uv(0), uv(4096), uv(4096), strings.Repeat("/", 4096)),
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

func TestLookupSort(t *testing.T) {
	tr := sampleTree()
	r := rand.New(rand.NewPCG(3, 4))
	r.Shuffle(len(tr.Entries), func(i, j int) { tr.Entries[i], tr.Entries[j] = tr.Entries[j], tr.Entries[i] })
	tr.Sort()
	if !reflect.DeepEqual(tr, sampleTree()) {
		t.Fatal("Sort did not restore name order")
	}
	for _, e := range sampleTree().Entries {
		got, ok := tr.Lookup(e.Name)
		if !ok || !got.Equal(&e) {
			t.Fatalf("Lookup(%q) = %+v, %v", e.Name, got, ok)
		}
	}
	for _, name := range []string{"", "a", "zzz", "bin0", "README"} {
		if got, ok := tr.Lookup(name); ok || got != nil {
			t.Fatalf("Lookup(%q) found %+v", name, got)
		}
	}
	var nilTree *Tree
	if _, ok := nilTree.Lookup("a"); ok {
		t.Fatal("nil tree lookup found something")
	}
}

func TestEqualAndStrings(t *testing.T) {
	a := sampleTree().Entries[0]
	b := a
	if !a.Equal(&b) {
		t.Fatal("copy not equal")
	}
	b.Mode = 0o644
	if a.Equal(&b) || a.Equal(nil) {
		t.Fatal("different entries equal")
	}
	var n *Entry
	if !n.Equal(nil) {
		t.Fatal("nil entries not equal")
	}
	for k, want := range map[Kind]string{KindFile: "file", KindDir: "dir", KindSymlink: "symlink", KindFIFO: "fifo", 9: "kind(9)"} {
		if k.String() != want {
			t.Errorf("Kind(%d).String() = %q", k, k.String())
		}
	}
	for c, want := range map[ChangeKind]string{Added: "added", Deleted: "deleted", Modified: "modified", ModeChanged: "mode", TypeChanged: "type", 0: "change(0)"} {
		if c.String() != want {
			t.Errorf("ChangeKind(%d).String() = %q", c, c.String())
		}
	}
}

// checkInvalid asserts that a tree of entries fails Validate with
// ErrMalformed mentioning want, and that Encode and Hash refuse it.
func checkInvalid(t *testing.T, entries []Entry, want string) {
	t.Helper()
	tr := &Tree{Entries: entries}
	err := tr.Validate()
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Validate = %v, want ErrMalformed mentioning %q", err, want)
	}
	if b, err := tr.Encode(); err == nil || b != nil {
		t.Fatalf("Encode = %x, %v; want an error", b, err)
	}
	if _, _, err := tr.Hash(); err == nil {
		t.Fatal("Hash succeeded")
	}
}
