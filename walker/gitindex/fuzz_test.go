package gitindex

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzDecodeIndex feeds arbitrary bytes to Decode and Build: nothing may
// panic, every path reported is valid, every file decoded is one the
// Set tracks, and the checksum is either right or zero. Inputs get a correct SHA-1 trailer half of the time,
// so the fuzzer reaches past the checksum check.
func FuzzDecodeIndex(f *testing.F) {
	for _, v := range []string{"2", "3", "4"} {
		dir := gitRepo(f, files, v)
		if data, err := os.ReadFile(filepath.Join(dir, ".git", "index")); err == nil {
			f.Add(data[:len(data)-20], true)
		}
	}
	f.Add([]byte("DIRC\x00\x00\x00\x04\xff\xff\xff\xff"), true)
	f.Fuzz(func(t *testing.T, body []byte, fix bool) {
		data := body
		if fix {
			sum := sha1.Sum(body)
			data = append(bytes.Clone(body), sum[:]...)
		}
		n := 0
		var paths []string
		err := Decode(bytes.NewReader(data), int64(len(data)), false, nil, func(e *Entry) error {
			if !validPath(e.Path) || len(e.Path) > maxPath {
				t.Fatalf("invalid path %q reported", e.Path)
			}
			if !e.IsDir() {
				paths = append(paths, string(bytes.TrimSuffix(e.Path, []byte("/"))))
			}
			n++
			return nil
		})
		if err == nil && n > len(data)/62 {
			t.Fatalf("%d entries from %d bytes", n, len(data))
		}
		if err == nil {
			// Every file decoded is one the Set tracks, in index
			// order or not (a trailing "/" trimmed, as Build does).
			s, err := Build(bytes.NewReader(data), int64(len(data)), false, nil, "")
			if err != nil {
				t.Fatalf("Decode read it, Build failed: %v", err)
			}
			for _, p := range paths {
				if !s.HasFile(p) {
					t.Fatalf("HasFile(%q) = false", p)
				}
			}
		}
		_, _ = Build(bytes.NewReader(data), int64(len(data)), true, nil, "a")
	})
}

// FuzzEWAH reads arbitrary words as a bitmap: nothing may panic, and
// the bits reported, in increasing order, are those refBits finds, up
// to the first error or the 10000th.
func FuzzEWAH(f *testing.F) {
	for _, ps := range [][]uint64{nil, {0}, {1, 63, 64, 200}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}} {
		f.Add(ewahBytes(ps)[8:])
	}
	var ones []uint64
	for p := range uint64(300) {
		ones = append(ones, p)
	}
	f.Add(ewahBytes(ones)[8:])
	f.Fuzz(func(t *testing.T, data []byte) {
		words := uint32(len(data) / 8)
		want, wantErr := refBits(data[:words*8], 10000)
		it := bitmap{words: words}.iter(bytes.NewReader(data))
		var got []uint64
		var err error
		for len(got) < 10000 {
			p, ok, e := it.next()
			if e != nil || !ok {
				err = e
				break
			}
			if len(got) > 0 && p <= got[len(got)-1] {
				t.Fatalf("bit %d after %d", p, got[len(got)-1])
			}
			got = append(got, p)
		}
		if !slices.Equal(got, want) || (err != nil) != (wantErr != nil) {
			t.Fatalf("%d bits (%v), want %d (%v)", len(got), err, len(want), wantErr)
		}
	})
}

// refBits is git's ewah_each_bit over the big-endian words in data,
// with a bound check, stopping after max bits. Runs of zeros too long
// for 2^62 bits are an error.
func refBits(data []byte, max int) ([]uint64, error) {
	var w []uint64
	for i := 0; i+8 <= len(data); i += 8 {
		w = append(w, binary.BigEndian.Uint64(data[i:]))
	}
	var out []uint64
	pos := uint64(0)
	for i := 0; i < len(w); {
		rlw := w[i]
		i++
		run, lits := (rlw>>1&0xffffffff)*64, int(rlw>>33)
		if pos+run+uint64(lits)*64 > 1<<62 {
			return out, ErrFormat
		}
		for k := uint64(0); rlw&1 != 0 && k < run; k++ {
			if len(out) == max {
				return out, nil
			}
			out = append(out, pos+k)
		}
		pos += run
		for k := 0; k < lits; k++ {
			if len(out) == max {
				return out, nil
			}
			if i >= len(w) {
				return out, ErrFormat
			}
			for c := range uint64(64) {
				if w[i]>>c&1 != 0 && len(out) < max {
					out = append(out, pos+c)
				}
			}
			pos += 64
			i++
		}
	}
	return out, nil
}

// FuzzSplitIndex decodes a split index and its shared index (their
// checksums appended; idMarker in the first stands for the second's
// id): nothing may panic, and what Decode reports is what git's
// merge_base_index makes (refMerge). An error is allowed only where
// git's would be an error too, or where the entries are out of order.
func FuzzSplitIndex(f *testing.F) {
	for _, c := range []string{"all", "conflict"} {
		for _, v := range []string{"2", "4"} {
			dir := splitRepo(f, v, "sha1")
			runGit(f, dir, "", "rm", "-q", "--cached", "b.txt")
			if c == "conflict" {
				runGit(f, dir, "0 "+strings.Repeat("0", 40)+"\tsrc/m.go\n100644 "+strings.Repeat("1", 40)+" 2\tsrc/m.go\n", "update-index", "--index-info")
			} else {
				os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed"), 0o644)
				os.WriteFile(filepath.Join(dir, "new"), []byte("new"), 0o644)
				runGit(f, dir, "", "add", "a.txt", "new")
			}
			main, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			shared, err2 := filepath.Glob(filepath.Join(dir, ".git", "sharedindex.*"))
			if err != nil || err2 != nil || len(shared) != 1 {
				f.Fatalf("%v %v %q", err, err2, shared)
			}
			sh, err := os.ReadFile(shared[0])
			if err != nil {
				f.Fatal(err)
			}
			id := sh[len(sh)-20:]
			f.Add(bytes.ReplaceAll(main[:len(main)-20], id, []byte(idMarker)), sh[:len(sh)-20])
		}
	}
	shared := indexBytes([]tEntry{"100644 0 a", "100644 1 b", "100644 2 b", "100755 0 c"})
	f.Add(indexBytes([]tEntry{"100755 0 ", "100644 0 b", "100644 0 d"}, linkExt([]byte(idMarker), []uint64{3}, []uint64{0})), shared)
	f.Fuzz(func(t *testing.T, main, shared []byte) {
		got, mainFile, sharedFile, err := decodeFiles(main, shared)
		for _, l := range got {
			if p := strings.SplitN(l, " ", 3)[2]; !validPath([]byte(p)) {
				t.Fatalf("invalid path %q reported", p)
			}
		}
		want, sorted, refErr := refMerge(mainFile, sharedFile)
		if errors.Is(refErr, errNotSplit) {
			return
		}
		// Where git dies on the index (unsorted), any reading is
		// allowed but an invalid path.
		if err == nil && (refErr != nil || sorted && !slices.Equal(got, want)) {
			t.Fatalf("decoded %q; git's merge: %q (%v)", got, want, refErr)
		}
		if err != nil && refErr == nil && sorted {
			t.Fatalf("%v; git's merge: %q", err, want)
		}
	})
}

var errNotSplit = errors.New("not a split index")

// refMerge merges split index main with its shared index shared as
// git's merge_base_index does, literally; sorted is false if either
// holds entries out of order, or the merge a path at stage 0 beside
// another stage of it (git dies on both).
func refMerge(main, shared []byte) (out []string, sorted bool, err error) {
	lay, err := scan(bytes.NewReader(main), int64(len(main)), false)
	if err != nil || lay.link == nil {
		return nil, false, errNotSplit
	}
	type ent struct {
		path  string
		mode  uint32
		stage int
	}
	read := func(data []byte) ([]ent, *reader, error) {
		x, err := newReader(bytes.NewReader(data), int64(len(data)), false, true)
		var all []ent
		for err == nil {
			var e *Entry
			if e, err = x.next(); e == nil {
				break
			}
			all = append(all, ent{string(e.Path), e.Mode, e.Stage})
		}
		return all, x, err
	}
	cache, x, err := read(shared)
	if err != nil {
		return nil, false, err
	}
	if sum, err := x.finish(); err != nil || !bytes.Equal(sum, lay.link.id) {
		return nil, false, fmt.Errorf("shared index: %v", err)
	}
	split, _, err := read(main)
	if err != nil {
		return nil, false, err
	}
	bitsOf := func(b bitmap) ([]uint64, error) {
		ps, err := refBits(main[b.off:b.off+int64(b.words)*8], 1<<20)
		if err == nil && len(ps) == 1<<20 {
			err = ErrFormat
		}
		return ps, err
	}
	rep, err1 := bitsOf(lay.link.rep)
	del, err2 := bitsOf(lay.link.del)
	if err := errors.Join(err1, err2); err != nil {
		return nil, false, err
	}
	for _, e := range cache {
		if !validPath([]byte(e.path)) {
			return nil, false, ErrFormat
		}
	}
	nr := 0
	for _, p := range rep {
		if p >= uint64(len(cache)) || nr >= len(split) || split[nr].path != "" {
			return nil, false, ErrFormat
		}
		cache[p].mode, cache[p].stage = split[nr].mode, split[nr].stage
		nr++
	}
	gone := map[uint64]bool{}
	for _, p := range del {
		if p >= uint64(len(cache)) {
			return nil, false, ErrFormat
		}
		gone[p] = true
	}
	cmp := func(a, b ent) int { return compare([]byte(a.path), a.stage, []byte(b.path), b.stage) }
	var kept []ent
	for i, e := range cache {
		if !gone[uint64(i)] {
			kept = append(kept, e)
		}
	}
	sorted = true
	for i := 1; i < len(kept); i++ {
		sorted = sorted && cmp(kept[i-1], kept[i]) < 0
	}
	for i, e := range split[nr:] {
		if !validPath([]byte(e.path)) {
			return nil, false, ErrFormat
		}
		sorted = sorted && (i == 0 || cmp(split[nr+i-1], e) < 0)
		// add_index_entry: replace the same path and stage, or insert;
		// one of stage 0 deletes the other stages of its path.
		pos, found := len(kept), false
		if len(kept) == 0 || e.path <= kept[len(kept)-1].path {
			pos, found = slices.BinarySearchFunc(kept, e, cmp)
		}
		if found {
			kept[pos] = e
			continue
		}
		for e.stage == 0 && pos < len(kept) && kept[pos].path == e.path {
			kept = slices.Delete(kept, pos, pos+1)
		}
		kept = slices.Insert(kept, pos, e)
	}
	for i, e := range kept {
		out = append(out, fmt.Sprintf("%o %d %s", e.mode, e.stage, e.path))
		// git's check_ce_order on the merged index: a path at stage 0
		// followed by the same path ("multiple stage entries for
		// merged file") makes git die, as an unordered one does.
		if i > 0 && kept[i-1].path == e.path && kept[i-1].stage == 0 {
			sorted = false
		}
	}
	return out, sorted, nil
}
