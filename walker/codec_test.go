package walker

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
)

func TestTrusted(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 500_000_000) // x.5 s
	ns := func(d time.Duration) int64 { return t0.Add(d).UnixNano() }
	old := ns(-time.Hour + 1)
	oldSec := ns(-time.Hour - 500*time.Millisecond) // a whole second
	cases := []struct {
		name         string
		mtime, ctime int64
		want         bool
	}{
		{"both old", old, old, true},
		{"mtime in the window", ns(-50 * time.Millisecond), old, false},
		{"ctime in the window", old, ns(-50 * time.Millisecond), false},
		{"mtime at the window's edge", ns(-racyWindow), old, false},
		{"mtime just past the edge", ns(-racyWindow - 1), ns(-racyWindow - 1), true},
		{"mtime in the future", ns(time.Second), old, false},
		{"ctime in the future", old, ns(time.Second), false},
		{"no ctime (platform without it)", ns(-200 * time.Millisecond), 0, true},
		{"whole-second mtime within 2 s", ns(-1500 * time.Millisecond), oldSec, false},
		{"whole-second mtime past 2 s", ns(-2500 * time.Millisecond), oldSec, true},
		{"whole-second mtime and ctime within 2 s", ns(-1500 * time.Millisecond), ns(-1500 * time.Millisecond), false},
		{"whole-second mtime, no ctime, within 2 s", ns(-1500 * time.Millisecond), 0, false},
		// cp -a or tar set a whole-second mtime on a filesystem whose
		// sub-second ctime shows it keeps fine timestamps.
		{"whole-second mtime, sub-second ctime 1.4 s ago", ns(-1500 * time.Millisecond), ns(-1400 * time.Millisecond), true},
		{"whole-second mtime, sub-second ctime in the window", ns(-1500 * time.Millisecond), ns(-50 * time.Millisecond), false},
		{"sub-second mtime 1.4 s ago", ns(-1400 * time.Millisecond), old, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := fileStat{size: 1, mtime: tc.mtime, ctime: tc.ctime, ino: 1, mode: 0o644}
			if got := trusted(st, t0); got != tc.want {
				t.Errorf("trusted(mtime %d, ctime %d) = %v, want %v", tc.mtime, tc.ctime, got, tc.want)
			}
		})
	}
}

func sampleRecord() *dirRecord {
	return &dirRecord{entries: []cacheEntry{
		{name: "a", st: fileStat{size: 0, mtime: 1, ctime: 2, ino: 3, mode: 0o644}, hash: cas.Sum(nil), stored: true},
		{name: "b c", st: fileStat{size: 1 << 40, mtime: -5, ctime: 1<<62 + 7, ino: 1<<64 - 1, mode: 0o4755}, hash: cas.Sum([]byte("b"))},
		{name: "ünïcödé", st: fileStat{size: 3, mtime: time.Now().UnixNano(), ctime: 0, ino: 0, mode: 1<<32 - 1}, hash: cas.Sum([]byte("c")), stored: true},
	}}
}

// sampleTreeRecord is sampleRecord with its tree and subdirectories.
func sampleTreeRecord() *dirRecord {
	r := sampleRecord()
	r.tree = cas.Sum([]byte("tree"))
	r.subs = []subEntry{
		{name: "big", hash: cas.Hash{}, uncaptured: true, files: 1 << 40},
		{name: "src", hash: cas.Sum([]byte("src"))},
		{name: "ünreadable", uncaptured: true},
	}
	return r
}

func sampleListedRecord() *dirRecord {
	r := sampleTreeRecord()
	r.listed = true
	r.lst = dirStat{fileStat: fileStat{size: 4096, mtime: 1700000000123456789, ctime: -5, ino: 1 << 50, mode: 0o20000000755}, dev: 2049}
	r.extra = []string{".git", "node_modules", "zz.log"}
	return r
}

// sameListing reports whether a and b hold the same listing.
func sameListing(a, b *dirRecord) bool {
	return a.listed == b.listed && a.lst == b.lst && len(a.extra) == len(b.extra) && (len(a.extra) == 0 || reflect.DeepEqual(a.extra, b.extra))
}

func TestRecordCodec(t *testing.T) {
	for _, r := range []*dirRecord{{}, {entries: []cacheEntry{}}, sampleRecord(), sampleTreeRecord(), {tree: cas.Sum(nil)},
		sampleListedRecord(), {tree: cas.Sum(nil), listed: true}} {
		b := encodeRecord(r)
		got, err := decodeRecord(b)
		if err != nil {
			t.Fatalf("decode(encode(%+v)): %v", r, err)
		}
		if len(got.entries) != len(r.entries) || (len(r.entries) > 0 && !reflect.DeepEqual(got.entries, r.entries)) ||
			got.tree != r.tree || len(got.subs) != len(r.subs) || (len(r.subs) > 0 && !reflect.DeepEqual(got.subs, r.subs)) || !sameListing(got, r) {
			t.Errorf("round trip: %+v, want %+v", got, r)
		}
		if !sameRecord(got, r) {
			t.Error("sameRecord(decoded, original) = false")
		}
	}
	good := encodeRecord(sampleRecord())
	withTree := encodeRecord(sampleTreeRecord())
	sumNil := cas.Sum(nil)
	v3 := func(b []byte) []byte { return append([]byte{cacheVersionTree}, b[1:]...) }
	zeroTree := append(v3(good), make([]byte, cas.HashSize)...)
	zeroTree = append(zeroTree, 0)
	unsorted := sampleTreeRecord()
	unsorted.subs[0], unsorted.subs[1] = unsorted.subs[1], unsorted.subs[0]
	dup := sampleTreeRecord()
	dup.subs[1].name = dup.subs[0].name
	bad := map[string][]byte{
		"v3 without tree":        v3(good),
		"v3 zero tree":           zeroTree,
		"v3 truncated":           withTree[:len(withTree)-1],
		"v3 trailing byte":       append(bytes.Clone(withTree), 0),
		"v3 subs unsorted":       encodeRecord(unsorted),
		"v3 subs duplicated":     encodeRecord(dup),
		"v3 sub count too large": append(append(v3(good), sumNil[:]...), 100),
		"nil":                    nil,
		"empty":                  {},
		"older version":          {cacheVersion - 1, 0},
		"newer version":          {cacheVersion + 1, 0},
		"count too large":        {cacheVersion, 100},
		"truncated":              good[:len(good)-5],
		"trailing byte":          append(bytes.Clone(good), 0),
		"name too long":          {cacheVersion, 1, 100, 'a'},
		"no hash":                {cacheVersion, 1, 1, 'a', 0, 0, 0, 0, 0},
		"no flags":               good[:len(good)-1],
		"unknown flag":           append(bytes.Clone(good[:len(good)-1]), 2),
	}
	for name, b := range bad {
		if r, err := decodeRecord(b); err == nil {
			t.Errorf("%s: decodeRecord(%x) accepted: %+v", name, b, r)
		}
	}
	if sameRecord(sampleRecord(), &dirRecord{}) || !sameRecord(nil, nil) || sameRecord(nil, &dirRecord{}) {
		t.Error("sameRecord")
	}
}

// TestRecordLegacy: records written before deltaVersions (each stat
// field whole) still decode.
func TestRecordLegacy(t *testing.T) {
	h := cas.Sum([]byte("x"))
	b := []byte{cacheVersion, 2,
		1, 'a', 4, 6, 8, 5, 0xa4, 0x03} // a: size 2, mtime 3, ctime 4, ino 5, mode 0o644
	b = append(append(b, h[:]...), 1)
	b = append(b, 1, 'b', 2, 0x80, 0x01, 0x82, 0x01, 7, 0xed, 0x03) // b: size 1, mtime 64, ctime 65, ino 7, mode 0o755
	b = append(append(b, h[:]...), 0)
	r, err := decodeRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	want := []cacheEntry{
		{name: "a", st: fileStat{size: 2, mtime: 3, ctime: 4, ino: 5, mode: 0o644}, hash: h, stored: true},
		{name: "b", st: fileStat{size: 1, mtime: 64, ctime: 65, ino: 7, mode: 0o755}, hash: h},
	}
	if !reflect.DeepEqual(r.entries, want) {
		t.Fatalf("legacy record: %+v, want %+v", r.entries, want)
	}
	// Encoded again, it is a delta record of the same entries, smaller.
	enc := encodeRecord(r)
	if enc[0] != cacheVersion+deltaVersions || len(enc) >= len(b) {
		t.Errorf("re-encoded: version %d, %d bytes (legacy %d)", enc[0], len(enc), len(b))
	}
	if r2, err := decodeRecord(enc); err != nil || !reflect.DeepEqual(r2.entries, want) {
		t.Errorf("re-encoded record decodes to %+v, %v", r2, err)
	}
}

func TestLookup(t *testing.T) {
	r := sampleRecord()
	for _, e := range r.entries {
		if got := r.lookup(e.name); got == nil || got.name != e.name {
			t.Errorf("lookup(%q) = %+v", e.name, got)
		}
	}
	for _, name := range []string{"", "0", "b", "zzz"} {
		if got := r.lookup(name); got != nil {
			t.Errorf("lookup(%q) = %+v, want nil", name, got)
		}
	}
	var nilRec *dirRecord
	if nilRec.lookup("a") != nil {
		t.Error("nil record lookup")
	}
}

// FuzzDecodeRecord: decodeRecord never panics, and what it accepts
// re-encodes to bytes that decode to the same record (a fixed point).
// Accepted input need not re-encode to itself: non-minimal varints, a
// mode wider than 32 bits and a truncated entry count are tolerated
// (the cache is only a hint).
func FuzzDecodeRecord(f *testing.F) {
	f.Add(encodeRecord(&dirRecord{}))
	f.Add(encodeRecord(sampleRecord()))
	f.Add(encodeRecord(sampleTreeRecord()))
	f.Add(encodeRecord(sampleListedRecord()))
	f.Add([]byte{cacheVersion, 1, 1, 'a', 0, 0, 0, 0, 0})
	f.Add([]byte{cacheVersion, 0x80})
	f.Add([]byte{cacheVersion})
	f.Add([]byte{cacheVersion, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRecord(b)
		if err != nil {
			if r != nil {
				t.Fatal("error with a record")
			}
			return
		}
		// Decoded into a reused array (a capture's scratch), the same.
		old := make([]cacheEntry, 1, 16)
		old[0] = cacheEntry{name: "stale", stored: true}
		if ri, err := decodeRecordInto(string(b), old); err != nil || !reflect.DeepEqual(ri.entries, r.entries) && (len(ri.entries) > 0 || len(r.entries) > 0) {
			t.Fatalf("decodeRecordInto: %+v, %v; decodeRecord: %+v", ri, err, r)
		}
		enc := encodeRecord(r)
		r2, err := decodeRecord(enc)
		if err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		if len(r2.entries) != len(r.entries) || (len(r.entries) > 0 && !reflect.DeepEqual(r.entries, r2.entries)) ||
			r2.tree != r.tree || len(r2.subs) != len(r.subs) || (len(r.subs) > 0 && !reflect.DeepEqual(r.subs, r2.subs)) || !sameListing(r, r2) {
			t.Fatalf("decode(encode(r)) = %+v, r = %+v", r2, r)
		}
		if !bytes.Equal(encodeRecord(r2), enc) {
			t.Fatal("encoding is not canonical")
		}
	})
}
