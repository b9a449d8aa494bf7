//go:build linux && (amd64 || arm64)

package walker

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
	"golang.org/x/sys/unix"
)

// listingHook records, for the test's lifetime, the directories below
// dir (slash paths, "" the root) that captures list with getdents
// rather than from their records. Tests using it do not run in
// parallel: the hook is the package's.
type listingHook struct {
	mu     sync.Mutex
	dir    string
	listed []string
}

func hookGetdents(t *testing.T, dir string) *listingHook {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	if fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0); err == nil {
		_, vouch := fsTraits(fd)
		unix.Close(fd)
		if !vouch {
			t.Skipf("%s is not on a local filesystem (or on overlayfs): listings are not cached there", dir)
		}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := &listingHook{dir: real}
	testHookGetdents = func(fd int) {
		p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
		if err != nil {
			return
		}
		rel, err := filepath.Rel(h.dir, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			return
		}
		if rel == "." {
			rel = ""
		}
		h.mu.Lock()
		h.listed = append(h.listed, filepath.ToSlash(rel))
		h.mu.Unlock()
	}
	t.Cleanup(func() { testHookGetdents = nil })
	return h
}

// take returns the directories listed since the last take, sorted.
func (h *listingHook) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.listed
	h.listed = nil
	slices.Sort(out)
	return out
}

// fullWalk is the oracle: a capture of dir into a fresh store, without
// a stat cache, flattened.
func fullWalk(t *testing.T, dir string) map[string]manifest.Entry {
	t.Helper()
	s := newStore(t)
	return flatten(t, s, snap(t, dir, s, Options{}).Root)
}

func sameSnapshot(t *testing.T, what string, got, want map[string]manifest.Entry) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d paths, full walk %d", what, len(got), len(want))
	}
	for _, p := range sortedKeys(want) {
		if g, ok := got[p]; !ok {
			t.Errorf("%s: %s missing (full walk has it)", what, p)
		} else if g != want[p] {
			t.Errorf("%s: %s = %+v, full walk %+v", what, p, g, want[p])
		}
	}
	for _, p := range sortedKeys(got) {
		if _, ok := want[p]; !ok {
			t.Errorf("%s: %s is not in the full walk", what, p)
		}
	}
}

// TestListingCache: a capture lists with getdents only the directories
// whose stat changed since the record was written (or that have none),
// and still equals a full walk: names added, removed and renamed in
// place or across directories, an ignored name, a new directory.
func TestListingCache(t *testing.T) {
	dir := t.TempDir()
	genTree(t, dir, 4, 6)
	treetest.PutAll(t, dir, map[string]string{".gitignore": "*.log\n", "d00/skip.log": "ignored", "top.txt": "top"})
	if err := os.Symlink("top.txt", abs(dir, "link")); err != nil {
		t.Fatal(err)
	}
	mkdirAll(t, dir, "empty")
	h := hookGetdents(t, dir)
	time.Sleep(settle)
	s := newStore(t)
	cache := NewStatCache(s.Backend())

	r1 := snap(t, dir, s, Options{Cache: cache})
	all := h.take()
	if len(all) != 10 { // "", d00..d03, their e*, empty
		t.Fatalf("first capture listed %q, want every directory", all)
	}
	r2 := snap(t, dir, s, Options{Cache: cache, Previous: r1.Root})
	if got := h.take(); len(got) != 0 || r2.Root != r1.Root {
		t.Fatalf("unchanged tree: listed %q (want none), root changed %v", got, r2.Root != r1.Root)
	}

	treetest.MustWrite(t, dir, treetest.Tree{"d00/e0/added.txt": treetest.File("added", 0o644)})
	removeAll(t, dir, "d01/e1/f000.txt")
	if err := os.Rename(abs(dir, "d02/e2/f001.txt"), abs(dir, "d02/e2/renamed.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(abs(dir, "d03/e0/f002.txt"), abs(dir, "d02/e2/moved.txt")); err != nil {
		t.Fatal(err)
	}
	treetest.PutAll(t, dir, map[string]string{"d00/e0/f003.txt": "same size edit, no new name......."[:len("file 0/3 0300000000000000\n")]})
	treetest.MustWrite(t, dir, treetest.Tree{"d01/new/inside.txt": treetest.File("new dir", 0o644)})
	removeAll(t, dir, "d00/skip.log") // ignored: still a change of d00's names
	r3 := snap(t, dir, s, Options{Cache: cache, Previous: r2.Root})
	// d01/new twice: the large-new-directory rule counts its files first.
	want := []string{"d00", "d00/e0", "d01", "d01/e1", "d01/new", "d01/new", "d02/e2", "d03/e0"}
	if got := h.take(); !slices.Equal(got, want) {
		t.Errorf("after the changes, listed %q, want %q", got, want)
	}
	sameSnapshot(t, "after the changes", flatten(t, s, r3.Root), fullWalk(t, dir))
	if r3.Stats.HashedFiles != 5 { // added, renamed, moved, edited, inside
		t.Errorf("read %d files, want 5", r3.Stats.HashedFiles)
	}
}

// TestListingTimesSetBack: a name added or removed with the directory's
// mtime then set back to what the record holds is still seen (its ctime
// moved, and no one can set that back).
func TestListingTimesSetBack(t *testing.T) {
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{"a/one.txt": "1", "a/two.txt": "2", "b/three.txt": "3"})
	h := hookGetdents(t, dir)
	time.Sleep(settle)
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	prev := snap(t, dir, s, Options{Cache: cache}).Root
	h.take()
	for i, tc := range []struct {
		dir    string
		change func()
	}{
		{"a", func() {
			treetest.MustWrite(t, dir, treetest.Tree{"a/new.txt": treetest.File("new", 0o644)})
		}},
		{"a", func() { removeAll(t, dir, "a/one.txt") }},
		{"b", func() {
			if err := os.Rename(abs(dir, "b/three.txt"), abs(dir, "b/four.txt")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		time.Sleep(settle)
		prev = snap(t, dir, s, Options{Cache: cache, Previous: prev}).Root // records trusted listings
		h.take()
		fi, err := os.Stat(abs(dir, tc.dir))
		if err != nil {
			t.Fatal(err)
		}
		tc.change()
		if err := os.Chtimes(abs(dir, tc.dir), fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		if fi2, err := os.Stat(abs(dir, tc.dir)); err != nil || !fi2.ModTime().Equal(fi.ModTime()) {
			t.Fatalf("mtime not set back: %v", err)
		}
		r := snap(t, dir, s, Options{Cache: cache, Previous: prev})
		prev = r.Root
		if got := h.take(); !slices.Equal(got, []string{tc.dir}) {
			t.Errorf("change %d: listed %q, want %q", i, got, tc.dir)
		}
		sameSnapshot(t, fmt.Sprintf("change %d with the mtime set back", i), flatten(t, s, r.Root), fullWalk(t, dir))
	}
}

// TestListingHostileRecord: a record whose listing names anything but
// one component of its directory, names one twice or out of order, is
// not used: the directory is listed, and nothing outside it is reached.
func TestListingHostileRecord(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "tree")
	treetest.PutAll(t, dir, map[string]string{"a/one.txt": "1", "two.txt": "2"})
	treetest.PutAll(t, base, map[string]string{"secret": "outside the work tree"})
	h := hookGetdents(t, dir)
	time.Sleep(settle)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		extra []string
	}{
		{"parent", []string{"../secret"}},
		{"path", []string{"a/one.txt"}},
		{"dot", []string{"."}},
		{"dotdot", []string{".."}},
		{"nul", []string{"x\x00y"}},
		{"twice", []string{"two.txt"}},
		{"empty", []string{""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			cache := NewStatCache(s.Backend())
			r1 := snap(t, dir, s, Options{Cache: cache})
			rec := cacheRecord(cache, "")
			if rec == nil || !rec.listed {
				t.Fatalf("root record %+v: no listing", rec)
			}
			rec.extra = append(rec.extra, tc.extra...)
			slices.Sort(rec.extra)
			if err := s.Backend().Set(ctx, cas.Entry{Key: cacheKey(""), Value: encodeRecord(rec)}); err != nil {
				t.Fatal(err)
			}
			h.take()
			r2 := snap(t, dir, s, Options{Cache: cache, Previous: r1.Root})
			if got := h.take(); !slices.Equal(got, []string{""}) {
				t.Errorf("listed %q, want the root (its record refused)", got)
			}
			sameSnapshot(t, "after the hostile record", flatten(t, s, r2.Root), fullWalk(t, dir))
		})
	}
}

// TestListingNames: which records' listings are used.
func TestListingNames(t *testing.T) {
	ent := func(names ...string) []cacheEntry {
		var out []cacheEntry
		for _, n := range names {
			out = append(out, cacheEntry{name: n})
		}
		return out
	}
	sub := func(names ...string) []subEntry {
		var out []subEntry
		for _, n := range names {
			out = append(out, subEntry{name: n})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		rec  *dirRecord
		want []string // nil: refused
	}{
		{"none", nil, nil},
		{"unlisted", &dirRecord{entries: ent("a")}, nil},
		{"empty", &dirRecord{listed: true}, []string{}},
		{"merged", &dirRecord{listed: true, entries: ent("b", "d"), subs: sub("a", "e"), extra: []string{"c", "f"}}, []string{"a", "b", "c", "d", "e", "f"}},
		{"entry twice", &dirRecord{listed: true, entries: ent("b", "b")}, nil},
		{"entry and sub", &dirRecord{listed: true, entries: ent("b"), subs: sub("b")}, nil},
		{"sub and extra", &dirRecord{listed: true, subs: sub("x"), extra: []string{"x"}}, nil},
		{"unsorted entries", &dirRecord{listed: true, entries: ent("c", "a")}, nil},
		{"slash in an entry", &dirRecord{listed: true, entries: ent("a/b")}, nil},
		{"dotdot sub", &dirRecord{listed: true, subs: sub("..")}, nil},
	} {
		got, ok := tc.rec.listingNames(nil, nil)
		if ok != (tc.want != nil) || ok && !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
}

// TestListingRandom: random changes to a tree, some made while a
// capture runs, some just before, some long enough before that their
// directories' stat is trusted; after each round a capture with the
// stat cache must equal a full walk, whichever listings it took from
// records.
func TestListingRandom(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("TURNBACK_LISTING_SEED"); s != "" { // replay a failure
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("seed %d (TURNBACK_LISTING_SEED replays it)", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	dir := t.TempDir()
	genTree(t, dir, 6, 5)
	hookGetdents(t, dir) // skips where listings are not cached
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	time.Sleep(settle)
	prev := snap(t, dir, s, Options{Cache: cache}).Root
	var mu sync.Mutex // one change at a time: rng is not safe for concurrent use
	change := func() {
		mu.Lock()
		defer mu.Unlock()
		randomChange(t, rng, dir)
	}
	for round := 0; round < 12; round++ {
		time.Sleep(time.Duration(rng.IntN(3)) * settle / 2)
		for i := rng.IntN(4); i > 0; i-- {
			change()
		}
		during := rng.IntN(6)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < during; i++ {
				time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
				change()
			}
		}()
		r := snap(t, dir, s, Options{Cache: cache, Previous: prev})
		wg.Wait()
		r = snap(t, dir, s, Options{Cache: cache, Previous: r.Root})
		prev = r.Root
		sameSnapshot(t, fmt.Sprintf("round %d (seed %d)", round, seed), flatten(t, s, r.Root), fullWalk(t, dir))
		if t.Failed() {
			return
		}
	}
}

// randomChange makes one change below dir: a file added, removed,
// rewritten or renamed (within its directory or to another), a
// directory made or removed, a symlink made, a file replaced by a
// directory of the same name.
func randomChange(t *testing.T, rng *rand.Rand, dir string) {
	var files, dirs []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		if d.IsDir() {
			dirs = append(dirs, p)
		} else {
			files = append(files, p)
		}
		return nil
	})
	dirs = append(dirs, dir)
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	name := fmt.Sprintf("n%d", rng.IntN(1000))
	var err error
	switch op := rng.IntN(8); {
	case op == 0 || len(files) == 0:
		err = os.WriteFile(filepath.Join(pick(dirs), name), []byte(name), 0o644)
	case op == 1:
		err = os.Remove(pick(files))
	case op == 2:
		err = os.WriteFile(pick(files), []byte(fmt.Sprint(rng.Int())), 0o644)
	case op == 3:
		f := pick(files)
		err = os.Rename(f, filepath.Join(filepath.Dir(f), name))
	case op == 4:
		err = os.Rename(pick(files), filepath.Join(pick(dirs), name))
	case op == 5:
		err = os.Mkdir(filepath.Join(pick(dirs), name), 0o755)
	case op == 6:
		if d := pick(dirs); d != dir {
			err = os.RemoveAll(d)
		}
	default:
		if rng.IntN(2) == 0 {
			err = os.Symlink(name, filepath.Join(pick(dirs), name+"l"))
		} else {
			f := pick(files)
			if err = os.Remove(f); err == nil {
				err = os.Mkdir(f, 0o755)
			}
		}
	}
	// ELOOP: a random symlink made a loop on the way; EISDIR: the name
	// picked is a directory an earlier change made. No change then.
	if err != nil && !os.IsExist(err) && !os.IsNotExist(err) && !errors.Is(err, unix.ELOOP) && !errors.Is(err, unix.EISDIR) {
		t.Errorf("change: %v", err)
	}
}

// TestListingRacyCoarse: on a filesystem whose timestamps have a
// coarse tick (whole seconds here, and no ctime to fall back on), a
// directory changed within the tick before a capture is not trusted, so
// a name added in the same tick after the capture is still seen.
func TestListingRacyCoarse(t *testing.T) {
	swapStat(t, func(fi fs.FileInfo) fileStat {
		st := noCtime(fi)
		st.mtime -= st.mtime % int64(time.Second)
		return st
	})
	dir := t.TempDir()
	h := hookGetdents(t, dir)
	for attempt := 0; ; attempt++ {
		// Start just after a second begins, so that all of it happens
		// within one second: a directory's mtime cannot tell the changes
		// apart.
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 10*time.Millisecond)))
		start := time.Now()
		sub := filepath.Join(dir, fmt.Sprint(attempt))
		treetest.PutAll(t, sub, map[string]string{"a/one.txt": "1"})
		s := newStore(t)
		cache := NewStatCache(s.Backend())
		r1 := snap(t, sub, s, Options{Cache: cache})
		treetest.MustWrite(t, sub, treetest.Tree{"a/two.txt": treetest.File("2", 0o644)})
		r2 := snap(t, sub, s, Options{Cache: cache, Previous: r1.Root})
		if time.Since(start) > 800*time.Millisecond {
			if attempt < 3 {
				continue // too slow a machine to stay within the second
			}
			t.Skip("cannot make the changes within one second")
		}
		h.take()
		if _, ok := flatten(t, s, r2.Root)["a/two.txt"]; !ok {
			t.Fatal("a name added within the tick of the capture before was missed")
		}
		return
	}
}

// TestStatCacheBulkWrite: records written through a batch (past
// bulkRecords; here every write) go to pack files in a Badger store, and
// the next capture reads them back like any others: no file is read
// again and no directory listed with getdents.
func TestStatCacheBulkWrite(t *testing.T) {
	old := bulkRecords
	bulkRecords = 0
	t.Cleanup(func() { bulkRecords = old })
	dir := t.TempDir()
	n := int64(genTree(t, dir, 6, 30)) // records of 30 files: over the batch's 256-byte packing threshold
	h := hookGetdents(t, dir)
	time.Sleep(settle)
	b, err := cas.OpenBadger(context.Background(), t.TempDir(), cas.BadgerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := newStoreOn(t, b)
	counted := &batchCounter{Backend: b}
	cache := NewStatCache(counted)
	r1 := snap(t, dir, s, Options{Cache: cache})
	if r1.Stats.HashedFiles != n {
		t.Fatalf("first capture read %d files, want %d", r1.Stats.HashedFiles, n)
	}
	if counted.puts.Load() != 13 { // "", 6 d*, 6 e*
		t.Fatalf("%d records went through a batch, want all 13", counted.puts.Load())
	}
	h.take()
	r2 := snap(t, dir, s, Options{Cache: cache, Previous: r1.Root})
	if r2.Stats.HashedFiles != 0 || r2.Root != r1.Root {
		t.Errorf("second capture read %d files (want 0), root changed %v", r2.Stats.HashedFiles, r2.Root != r1.Root)
	}
	if got := h.take(); len(got) != 0 {
		t.Errorf("second capture listed %q with getdents", got)
	}
}

// batchCounter counts the entries put through its batches.
type batchCounter struct {
	cas.Backend
	puts atomic.Int64
}

func (c *batchCounter) NewBatch() cas.Batch { return &countedBatch{Batch: c.Backend.NewBatch(), c: c} }

type countedBatch struct {
	cas.Batch
	c *batchCounter
}

func (b *countedBatch) Put(key, value []byte) error {
	b.c.puts.Add(1)
	return b.Batch.Put(key, value)
}
