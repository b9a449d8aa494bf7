//go:build linux && (amd64 || arm64)

package walker

// Review 42's attacks on the delta-coded stat cache records (a423813)
// and the 20 ms racy window (9a5b8e4).

import (
	"context"
	"encoding/binary"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest/treetest"
	"golang.org/x/sys/unix"
)

// legacyEncode is encodeRecord as it was before deltaVersions: each
// stat field whole (versions 2-4). Older binaries wrote these.
func legacyEncode(r *dirRecord) []byte {
	var b []byte
	switch {
	case r.tree.IsZero():
		b = append(b, cacheVersion)
	case r.listed:
		b = append(b, cacheVersionListing)
	default:
		b = append(b, cacheVersionTree)
	}
	b = binary.AppendUvarint(b, uint64(len(r.entries)))
	for _, e := range r.entries {
		b = binary.AppendUvarint(b, uint64(len(e.name)))
		b = append(b, e.name...)
		b = binary.AppendVarint(b, e.st.size)
		b = binary.AppendVarint(b, e.st.mtime)
		b = binary.AppendVarint(b, e.st.ctime)
		b = binary.AppendUvarint(b, e.st.ino)
		b = binary.AppendUvarint(b, uint64(e.st.mode))
		b = append(b, e.hash[:]...)
		flags := byte(0)
		if e.stored {
			flags = 1
		}
		b = append(b, flags)
	}
	if r.tree.IsZero() {
		return b
	}
	b = append(b, r.tree[:]...)
	b = binary.AppendUvarint(b, uint64(len(r.subs)))
	for _, e := range r.subs {
		b = binary.AppendUvarint(b, uint64(len(e.name)))
		b = append(b, e.name...)
		b = append(b, e.hash[:]...)
		flags := byte(0)
		if e.uncaptured {
			flags = 1
		}
		b = append(b, flags)
		b = binary.AppendVarint(b, e.files)
	}
	if r.listed {
		b = appendListing(b, r)
	}
	return b
}

// TestRecordDeltaExtremes: entries whose times, inodes and modes are at
// the ends of their ranges, so that every difference overflows, round
// trip exactly in the delta form and in the legacy one, also when
// decoded into a scratch that held another record.
func TestRecordDeltaExtremes(t *testing.T) {
	times := []int64{math.MinInt64, math.MaxInt64, 0, -1, 1, -1_000_000_000_123, math.MinInt64 + 1}
	inos := []uint64{0, math.MaxUint64, 1 << 63, 1, math.MaxUint64 - 1, 42}
	modes := []uint32{0xffffffff, 0, 1 << 31, uint32(fs.ModeDir | 0o755), uint32(fs.ModeSetuid | fs.ModeSticky | 0o7777), 0o644}
	rng := rand.New(rand.NewPCG(42, 42))
	var entries []cacheEntry
	for i := 0; i < 64; i++ {
		entries = append(entries, cacheEntry{
			name: "f" + strings.Repeat("x", i),
			st: fileStat{
				size:  times[rng.IntN(len(times))],
				mtime: times[rng.IntN(len(times))],
				ctime: times[rng.IntN(len(times))],
				ino:   inos[rng.IntN(len(inos))],
				mode:  modes[rng.IntN(len(modes))],
			},
			hash:   cas.Sum([]byte{byte(i)}),
			stored: i%3 != 0,
		})
	}
	base := []*dirRecord{
		{entries: entries},
		{entries: entries, tree: cas.Sum([]byte("tree")), subs: []subEntry{{name: "sub", hash: cas.Sum([]byte("s")), files: math.MaxInt64}}},
		{entries: entries, tree: cas.Sum([]byte("tree")), listed: true,
			lst:   dirStat{fileStat: fileStat{size: -1, mtime: math.MinInt64, ctime: math.MaxInt64, ino: math.MaxUint64, mode: 0xffffffff}, dev: math.MaxUint64},
			extra: []string{"x.log", "zz"}},
	}
	// A scratch that held a different delta record first.
	scratch := &dirRecord{}
	other := &dirRecord{entries: []cacheEntry{{name: "stale", st: fileStat{size: 9, mtime: 7, ctime: 7, ino: 99, mode: 0o600}, stored: true}}}
	for i, want := range base {
		for _, enc := range []struct {
			name string
			b    []byte
		}{{"delta", encodeRecord(want)}, {"legacy", legacyEncode(want)}} {
			got, err := decodeRecord(enc.b)
			if err != nil {
				t.Fatalf("record %d, %s: %v", i, enc.name, err)
			}
			if !reflect.DeepEqual(got.entries, want.entries) || got.tree != want.tree || !reflect.DeepEqual(got.subs, want.subs) || !sameListing(got, want) {
				t.Fatalf("record %d, %s: decoded %+v, want %+v", i, enc.name, got, want)
			}
			if err := decodeRecordReuse(string(encodeRecord(other)), scratch, nil); err != nil {
				t.Fatal(err)
			}
			if err := decodeRecordReuse(string(enc.b), scratch, nil); err != nil {
				t.Fatalf("record %d, %s, into a scratch: %v", i, enc.name, err)
			}
			if !reflect.DeepEqual(scratch.entries, want.entries) || !sameRecord(scratch, got) {
				t.Fatalf("record %d, %s, into a scratch: %+v, want %+v", i, enc.name, scratch.entries, want.entries)
			}
		}
	}
}

// TestLegacyRecordsInStore: a store whose records an older binary wrote
// (versions 2-4, some of them) beside this one's: the next capture
// trusts them as it trusts its own (no file read, no directory listed),
// and still sees a name added and a same-size edit with the mtime set
// back in directories with a legacy record.
func TestLegacyRecordsInStore(t *testing.T) {
	dir := t.TempDir()
	genTree(t, dir, 6, 5)
	treetest.PutAll(t, dir, map[string]string{"top.txt": "top", "d00/e0/g.txt": "g"})
	ageTree(t, dir)
	h := hookGetdents(t, dir)
	time.Sleep(settle)
	ctx := context.Background()
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	r1 := snap(t, dir, s, Options{Cache: cache})
	h.take()

	// Every other record goes back to the legacy form.
	legacy := map[string]bool{}
	for i, k := range cacheKeys(t, s.Backend()) {
		if i%2 != 0 {
			continue
		}
		rel := strings.TrimPrefix(k, cachePrefix)
		rec := cacheRecord(cache, rel)
		if rec == nil {
			t.Fatalf("record %q does not decode", k)
		}
		if err := s.Backend().Set(ctx, cas.Entry{Key: []byte(k), Value: legacyEncode(rec)}); err != nil {
			t.Fatal(err)
		}
		legacy[rel] = true
	}
	if len(legacy) < 3 {
		t.Fatalf("only %d legacy records", len(legacy))
	}
	r2 := snap(t, dir, s, Options{Cache: cache, Previous: r1.Root})
	if listed := h.take(); r2.Stats.HashedFiles != 0 || len(listed) != 0 || r2.Root != r1.Root {
		t.Fatalf("unchanged tree over legacy records: read %d files, listed %q, root changed %v", r2.Stats.HashedFiles, listed, r2.Root != r1.Root)
	}

	// Changes in directories whose record is legacy.
	var dirs []string
	for d := range legacy {
		if d != "" && strings.Count(d, "/") == 1 {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) < 2 {
		t.Fatalf("legacy directories %v: want two below the root", dirs)
	}
	added := path.Join(dirs[0], "added.txt")
	treetest.PutAll(t, dir, map[string]string{added: "added"})
	edited := ""
	for _, p := range []string{"f000.txt", "f001.txt"} {
		q := path.Join(dirs[1], p)
		fi, err := os.Stat(abs(dir, q))
		if err != nil {
			continue
		}
		old, err := os.ReadFile(abs(dir, q))
		if err != nil {
			t.Fatal(err)
		}
		edit := []byte(strings.ToUpper(string(old)))
		if err := os.WriteFile(abs(dir, q), edit, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(abs(dir, q), fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		edited = q
		break
	}
	if edited == "" {
		t.Fatalf("no file to edit in %s", dirs[1])
	}
	r3 := snap(t, dir, s, Options{Cache: cache, Previous: r2.Root})
	sameSnapshot(t, "after changes in legacy directories", flatten(t, s, r3.Root), fullWalk(t, dir))
	time.Sleep(settle)
	// The changed files were racy in r3: r4 reads them once more, and
	// trusts them from then on.
	r4 := snap(t, dir, s, Options{Cache: cache, Previous: r3.Root})
	r5 := snap(t, dir, s, Options{Cache: cache, Previous: r4.Root})
	if r4.Root != r3.Root || r5.Root != r3.Root || r4.Stats.HashedFiles > 2 || r5.Stats.HashedFiles != 0 {
		t.Errorf("settled: roots changed %v %v, read %d then %d files (want at most 2, then 0)",
			r4.Root != r3.Root, r5.Root != r3.Root, r4.Stats.HashedFiles, r5.Stats.HashedFiles)
	}
}

// TestListingNameAddedDuringCapture attacks the listing cache with the
// narrow window: while a capture lstats the names of a directory (its
// stat already taken, its listing read), a name is added to it. The
// directory's earlier change is at a random distance before the capture
// (inside the window, at its edge, past it). The next capture must see
// the name.
func TestListingNameAddedDuringCapture(t *testing.T) {
	dir := t.TempDir()
	hookGetdents(t, dir) // skips where listings are not cached
	treetest.PutAll(t, dir, map[string]string{"d/a.txt": "a", "d/b.txt": "b", "top.txt": "t"})
	time.Sleep(settle)
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	prev := snap(t, dir, s, Options{Cache: cache}).Root
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	rounds := 20
	for i := 0; i < rounds; i++ {
		// The directory changes before the capture...
		treetest.PutAll(t, dir, map[string]string{path.Join("d", "before"+string(rune('a'+i))+".txt"): "x"})
		time.Sleep(time.Duration(rng.IntN(int(2 * localRacyWindow))))
		// ...and once more while the capture lstats its names.
		late := path.Join("d", "late"+string(rune('a'+i))+".txt")
		var added atomic.Bool
		testHookLstat = func(name string) {
			if name != "a.txt" || added.Swap(true) {
				return
			}
			if err := os.WriteFile(abs(dir, late), []byte("late"), 0o644); err != nil {
				panic(err)
			}
		}
		r := snap(t, dir, s, Options{Cache: cache, Previous: prev})
		testHookLstat = nil
		if !added.Load() {
			t.Fatalf("round %d: the hook never ran", i)
		}
		_ = r
		// The next captures, right after and settled, see the late name.
		r2 := snap(t, dir, s, Options{Cache: cache, Previous: r.Root})
		if _, ok := flatten(t, s, r2.Root)[late]; !ok {
			t.Fatalf("round %d: %s, added while the capture before read d, is missing from the next capture", i, late)
		}
		prev = r2.Root
	}
	t.Cleanup(func() { testHookLstat = nil })
	sameSnapshot(t, "at the end", flatten(t, s, prev), fullWalk(t, dir))
}

// TestCoarseClockLag checks localRacyWindow's premise where
// TestLocalClockLag cannot: since Linux 6.13, a ctime read by a stat
// makes the file's next change take a fine-grained time (multigrain
// timestamps), so that test sees lags under 1 ms. Filesystems without
// multigrain times (zfs, f2fs, bcachefs) and older kernels stamp changes
// with CLOCK_REALTIME_COARSE: its lag behind the wall clock must stay
// well within the window.
func TestCoarseClockLag(t *testing.T) {
	t.Parallel()
	var res unix.Timespec
	if err := unix.ClockGetres(unix.CLOCK_REALTIME_COARSE, &res); err != nil {
		t.Skipf("no CLOCK_REALTIME_COARSE: %v", err)
	}
	var worst time.Duration
	end := time.Now().Add(300 * time.Millisecond)
	for i := 0; time.Now().Before(end); i++ {
		var fine, coarse unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_REALTIME, &fine); err != nil {
			t.Fatal(err)
		}
		if err := unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &coarse); err != nil {
			t.Fatal(err)
		}
		worst = max(worst, time.Duration(fine.Nano()-coarse.Nano()))
		if i%1000 == 0 {
			time.Sleep(time.Duration(i%7) * time.Millisecond)
		}
	}
	if worst > localRacyWindow/2 {
		t.Fatalf("the coarse clock lagged the wall clock by %v (its tick %v): localRacyWindow (%v) is too narrow here",
			worst, time.Duration(res.Nano()), localRacyWindow)
	}
	t.Logf("coarse clock: tick %v, worst lag %v", time.Duration(res.Nano()), worst)
}
