package gitindex

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// tEntry is an index entry for indexBytes: "mode stage path" as
// lsFiles shows it, the mode in octal.
type tEntry string

// indexBytes returns a version 2 index of ents, then exts, without its
// checksum.
func indexBytes(ents []tEntry, exts ...[]byte) []byte {
	b := []byte("DIRC\x00\x00\x00\x02")
	b = binary.BigEndian.AppendUint32(b, uint32(len(ents)))
	for _, e := range ents {
		var mode uint32
		var stage uint16
		fmt.Sscanf(string(e), "%o %d", &mode, &stage)
		path := strings.SplitN(string(e), " ", 3)[2]
		ent := make([]byte, 62)
		binary.BigEndian.PutUint32(ent[24:], mode)
		binary.BigEndian.PutUint16(ent[60:], stage<<12|uint16(min(len(path), 0xfff)))
		ent = append(ent, path...)
		b = append(b, ent...)
		b = append(b, make([]byte, (62+len(path)+8)&^7-62-len(path))...)
	}
	for _, x := range exts {
		b = append(b, x...)
	}
	return b
}

// withSum returns b with its SHA-1 appended.
func withSum(b []byte) []byte {
	s := sha1.Sum(b)
	return append(bytes.Clone(b), s[:]...)
}

// ext returns an extension of signature sig holding data.
func ext(sig string, data []byte) []byte {
	return append(binary.BigEndian.AppendUint32([]byte(sig), uint32(len(data))), data...)
}

// linkExt returns a link extension naming id, deleting and replacing
// the shared entries at positions del and rep (nil both: no bitmaps).
func linkExt(id []byte, del, rep []uint64) []byte {
	data := bytes.Clone(id)
	if del != nil || rep != nil {
		data = append(append(data, ewahBytes(del)...), ewahBytes(rep)...)
	}
	return ext("link", data)
}

// ewahBytes encodes the set bits at positions ps (increasing) as git
// serializes an EWAH bitmap: a run-length word before each run of
// words all zeros or all ones and the literal words after it.
func ewahBytes(ps []uint64) []byte {
	var words []uint64
	for _, p := range ps {
		for uint64(len(words)) <= p/64 {
			words = append(words, 0)
		}
		words[p/64] |= 1 << (p % 64)
	}
	var out []uint64
	for i := 0; i < len(words); {
		rlw := len(out)
		out = append(out, 0)
		run, bit := uint64(0), uint64(0)
		if words[i] == ^uint64(0) {
			bit = 1
		}
		for i < len(words) && words[i] == -bit {
			run, i = run+1, i+1
		}
		lits := uint64(0)
		for i < len(words) && words[i] != 0 && words[i] != ^uint64(0) {
			out, lits, i = append(out, words[i]), lits+1, i+1
		}
		out[rlw] = bit | run<<1 | lits<<33
	}
	b := binary.BigEndian.AppendUint32(nil, uint32(len(words)*64))
	b = binary.BigEndian.AppendUint32(b, uint32(len(out)))
	for _, w := range out {
		b = binary.BigEndian.AppendUint64(b, w)
	}
	return binary.BigEndian.AppendUint32(b, 0)
}

// decodeSplit decodes the split index main (no checksum) with the
// shared index shared (no checksum): main's link names it by id, or by
// its checksum where main has idMarker.
func decodeSplit(main, shared []byte) ([]string, error) {
	got, _, _, err := decodeFiles(main, shared)
	return got, err
}

// decodeFiles is decodeSplit, returning the files it decoded as well.
func decodeFiles(main, shared []byte) (got []string, mainFile, sharedFile []byte, err error) {
	sharedFile = withSum(shared)
	id := sharedFile[len(sharedFile)-20:]
	mainFile = withSum(bytes.ReplaceAll(main, []byte(idMarker), id))
	fsys := fstest.MapFS{"sharedindex." + hex.EncodeToString(id): {Data: sharedFile}}
	err = Decode(bytes.NewReader(mainFile), int64(len(mainFile)), false, fsys, func(e *Entry) error {
		got = append(got, fmt.Sprintf("%o %d %s", e.Mode, e.Stage, e.Path))
		return nil
	})
	return got, mainFile, sharedFile, err
}

// idMarker stands for the shared index's id in a link extension.
const idMarker = "@shared-index-id-20@"

// TestMergeSplit: the merges git never writes, or seldom: what git's
// merge_base_index makes of them, or an error.
func TestMergeSplit(t *testing.T) {
	id := []byte(idMarker)
	shared := []tEntry{"100644 0 a", "100644 0 b", "100755 0 c", "100644 0 d"}
	seq := func(from, to uint64) (ps []uint64) {
		for p := from; p < to; p++ {
			ps = append(ps, p)
		}
		return ps
	}
	var many []tEntry
	for i := range 200 {
		many = append(many, tEntry(fmt.Sprintf("100644 0 f%03d", i)))
	}
	cases := []struct {
		name   string
		shared []tEntry
		main   []tEntry
		link   []byte // nil: the link extension of main and of its bits
		del    []uint64
		rep    []uint64
		want   []tEntry // nil: an error
	}{
		{name: "no change", shared: shared, want: shared},
		{name: "replaced", shared: shared, main: []tEntry{"100755 0 ", "120000 0 "}, rep: []uint64{0, 3},
			want: []tEntry{"100755 0 a", "100644 0 b", "100755 0 c", "120000 0 d"}},
		{name: "deleted", shared: shared, del: []uint64{1, 3}, want: []tEntry{"100644 0 a", "100755 0 c"}},
		{name: "added", shared: shared, main: []tEntry{"100644 0 0", "100644 0 bb", "100644 0 e"},
			want: []tEntry{"100644 0 0", "100644 0 a", "100644 0 b", "100644 0 bb", "100755 0 c", "100644 0 d", "100644 0 e"}},
		{name: "added over one", shared: shared, main: []tEntry{"120000 0 b"},
			want: []tEntry{"100644 0 a", "120000 0 b", "100755 0 c", "100644 0 d"}},
		{name: "replaced and deleted", shared: shared, main: []tEntry{"100755 0 ", "100644 0 x"}, rep: []uint64{1}, del: []uint64{1},
			want: []tEntry{"100644 0 a", "100755 0 c", "100644 0 d", "100644 0 x"}},
		{name: "stage 0 added over stages", shared: []tEntry{"100644 0 a", "100644 1 b", "100644 2 b", "100644 3 b", "100644 0 c"},
			main: []tEntry{"100755 0 b"}, want: []tEntry{"100644 0 a", "100755 0 b", "100644 0 c"}},
		{name: "stages added beside stage 0", shared: shared, main: []tEntry{"100644 1 b", "100644 3 b"},
			want: []tEntry{"100644 0 a", "100644 0 b", "100644 1 b", "100644 3 b", "100755 0 c", "100644 0 d"}},
		{name: "runs of ones", shared: many, del: seq(0, 130), rep: []uint64{199}, main: []tEntry{"100755 0 "},
			want: append(slices.Clone(many[130:199]), "100755 0 f199")},
		{name: "all deleted, some added", shared: many, del: seq(0, 200), main: []tEntry{"100644 0 new"},
			want: []tEntry{"100644 0 new"}},
		{name: "no bitmaps", shared: shared, main: []tEntry{"100644 0 e"}, link: linkExt(id, nil, nil),
			want: append(slices.Clone(shared), "100644 0 e")},
		{name: "a null id is no split", shared: shared, main: []tEntry{"100644 0 e"}, link: linkExt(make([]byte, 20), nil, nil),
			want: []tEntry{"100644 0 e"}},
		{name: "a replacement with a path", shared: shared, main: []tEntry{"100644 0 a"}, rep: []uint64{0}},
		{name: "an entry added without a path", shared: shared, main: []tEntry{"100644 0 ", "100644 0 "}, rep: []uint64{0}},
		{name: "more replacements than entries", shared: shared, main: []tEntry{"100644 0 "}, rep: []uint64{0, 1}},
		{name: "a deletion past the shared entries", shared: shared, del: []uint64{4}},
		{name: "a replacement past the shared entries", shared: shared, main: []tEntry{"100644 0 "}, rep: []uint64{4}},
		{name: "shared entries out of order", shared: []tEntry{"100644 0 b", "100644 0 a"}},
		{name: "added entries out of order", shared: shared, main: []tEntry{"100644 0 y", "100644 0 x"}},
		{name: "a link too short", shared: shared, link: ext("link", id[:19])},
		{name: "bytes after the bitmaps", shared: shared, link: ext("link", append(linkExt(id, []uint64{1}, nil)[8:], 0))},
		{name: "a bitmap truncated", shared: shared, link: ext("link", linkExt(id, []uint64{1}, []uint64{2})[8:40])},
		{name: "literal words past the end", shared: shared,
			link: ext("link", append(append(bytes.Clone(id), 0, 0, 0, 64, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0), ewahBytes(nil)...))},
		{name: "two links", shared: shared, link: append(linkExt(id, nil, nil), linkExt(id, nil, nil)...)},
		{name: "the wrong shared index", shared: shared, link: linkExt(bytes.Repeat([]byte{1}, 20), nil, nil)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			link := c.link
			if link == nil {
				link = linkExt(id, c.del, c.rep)
			}
			got, err := decodeSplit(indexBytes(c.main, ext("TREE", nil), link), indexBytes(c.shared, ext("TREE", []byte("x"))))
			want := make([]string, len(c.want))
			for i, e := range c.want {
				want[i] = string(e)
			}
			switch {
			case c.want == nil:
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("error %v; decoded %q", err, got)
				}
			case err != nil:
				t.Fatal(err)
			case !slices.Equal(got, want):
				t.Fatalf("decoded\n%q\nwant\n%q", got, want)
			}
		})
	}
}
