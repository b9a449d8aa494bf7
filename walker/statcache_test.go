//go:build unix

package walker

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

// TestStatCacheSkipsUnchanged: once files are older than the racy
// window, a capture of an unchanged tree reads nothing, and a capture
// after an edit reads exactly the edited files.
func TestStatCacheSkipsUnchanged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	n := int64(genTree(t, dir, 4, 6))
	treetest.MustWrite(t, dir, treetest.Tree{"top.txt": treetest.File("top", 0o644)})
	n++
	time.Sleep(settle)
	s := newStore(t)
	cache := NewStatCache(s.Backend())

	r1 := snap(t, dir, s, Options{Cache: cache})
	if r1.Stats.HashedFiles != n {
		t.Fatalf("first capture read %d files, want %d", r1.Stats.HashedFiles, n)
	}
	r2 := snap(t, dir, s, Options{Cache: cache, Previous: r1.Root})
	if r2.Stats.HashedFiles != 0 || r2.Stats.HashedBytes != 0 || r2.Root != r1.Root {
		t.Fatalf("unchanged tree: read %d files (%d bytes), root %s vs %s; want 0 reads, same root",
			r2.Stats.HashedFiles, r2.Stats.HashedBytes, r2.Root.Short(), r1.Root.Short())
	}
	if r2.Stats.Files != n || r2.Stats.Bytes != r1.Stats.Bytes {
		t.Errorf("cached capture: files %d bytes %d, want %d %d", r2.Stats.Files, r2.Stats.Bytes, n, r1.Stats.Bytes)
	}

	// Edit three files: one at the top, two in one directory, one of them
	// keeping its size.
	treetest.PutAll(t, dir, map[string]string{
		"top.txt":         "TOP",
		"d01/e1/f002.txt": "changed\n",
		"d01/e1/f003.txt": "changed too, longer\n",
	})
	r3 := snap(t, dir, s, Options{Cache: cache, Previous: r2.Root})
	if r3.Stats.HashedFiles != 3 {
		t.Errorf("after editing 3 files: read %d, want 3", r3.Stats.HashedFiles)
	}
	got := flatten(t, s, r3.Root)
	if got["top.txt"].Hash != cas.Sum([]byte("TOP")) || got["d01/e1/f003.txt"].Hash != cas.Sum([]byte("changed too, longer\n")) {
		t.Error("edits not captured")
	}
	// Just written, the edited files are racily clean: those written
	// within the racy window before r3 began are not trusted yet, so the
	// next capture reads them again, and only them. How many that is
	// depends on the machine's speed (TestTrustedWithinLocal has the
	// window's bounds).
	r4 := snap(t, dir, s, Options{Cache: cache, Previous: r3.Root})
	if r4.Stats.HashedFiles > 3 || r4.Root != r3.Root {
		t.Errorf("right after the edit: read %d files (want at most the 3 racy ones), root changed %v", r4.Stats.HashedFiles, r4.Root != r3.Root)
	}
	time.Sleep(settle)
	r5 := snap(t, dir, s, Options{Cache: cache, Previous: r4.Root})
	r6 := snap(t, dir, s, Options{Cache: cache, Previous: r5.Root})
	if r5.Stats.HashedFiles > 3 || r6.Stats.HashedFiles != 0 || r6.Root != r3.Root {
		t.Errorf("after settling: read %d then %d files, want at most 3 then 0", r5.Stats.HashedFiles, r6.Stats.HashedFiles)
	}

	// Add, delete, rename, chmod: only new names and changed stat data
	// are read.
	treetest.MustWrite(t, dir, treetest.Tree{"added.txt": treetest.File("new", 0o644)})
	removeAll(t, dir, "d02/e2/f000.txt")
	if err := os.Rename(abs(dir, "d03/e0/f000.txt"), abs(dir, "d03/e0/renamed.txt")); err != nil {
		t.Fatal(err)
	}
	chmod(t, dir, "d00/e0/f005.txt", 0o600)
	r7 := snap(t, dir, s, Options{Cache: cache, Previous: r6.Root})
	if r7.Stats.HashedFiles != 3 { // added, renamed, chmodded
		t.Errorf("after add/delete/rename/chmod: read %d files, want 3", r7.Stats.HashedFiles)
	}
	if fresh := snap(t, dir, newStore(t), Options{}); fresh.Root != r7.Root {
		t.Errorf("cached capture %s differs from a fresh one %s", r7.Root.Short(), fresh.Root.Short())
	}
}

// TestStatCacheRacyEdit: with ctime and inode numbers unavailable (as on
// some platforms), a file written, captured and rewritten with the same
// size and the exact same mtime is still seen to change, because the
// first capture happened within the racy window and so never trusted
// the file's stat data.
func TestStatCacheRacyEdit(t *testing.T) {
	swapStat(t, noCtime)
	dir := t.TempDir()
	p := abs(dir, "f.txt")
	s := newStore(t)
	cache := NewStatCache(s.Backend())

	treetest.MustWrite(t, dir, treetest.Tree{"f.txt": treetest.File("version-1", 0o644)})
	fi1, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	r1 := snap(t, dir, s, Options{Cache: cache})
	if h := flatten(t, s, r1.Root)["f.txt"].Hash; h != cas.Sum([]byte("version-1")) {
		t.Fatalf("v1 hash %s", h.Short())
	}
	if rec := cacheRecord(cache, ""); rec.lookup("f.txt") != nil {
		t.Fatal("a file written within the racy window was trusted by the stat cache")
	}

	treetest.MustWrite(t, dir, treetest.Tree{"f.txt": treetest.File("version-2", 0o644)})
	if err := os.Chtimes(p, fi1.ModTime(), fi1.ModTime()); err != nil {
		t.Fatal(err)
	}
	fi2, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if statFunc(fi1) != statFunc(fi2) {
		t.Fatalf("setup: stat data differ: %+v vs %+v", statFunc(fi1), statFunc(fi2))
	}
	r2 := snap(t, dir, s, Options{Cache: cache, Previous: r1.Root})
	if h := flatten(t, s, r2.Root)["f.txt"].Hash; h != cas.Sum([]byte("version-2")) {
		t.Errorf("racy edit missed: hash %s, want v2 %s", h.Short(), cas.Sum([]byte("version-2")).Short())
	}
	if r2.Stats.HashedFiles != 1 {
		t.Errorf("read %d files, want 1", r2.Stats.HashedFiles)
	}
}

// TestStatCacheCtimeGuardsOldFiles documents what ctime is for: an old
// file (cached long after it was written) edited in place and given back
// its exact mtime and size looks unchanged to size+mtime alone. Without
// ctime the edit is missed (the limit of platforms without it); with the
// real stat data it is seen.
func TestStatCacheCtimeGuardsOldFiles(t *testing.T) {
	run := func(t *testing.T) (before, after cas.Hash, hashed int64) {
		dir := t.TempDir()
		p := abs(dir, "old.txt")
		treetest.MustWrite(t, dir, treetest.Tree{"old.txt": treetest.File("AAAA", 0o644)})
		old := time.Now().Add(-time.Hour).Truncate(time.Second).Add(987654321)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		time.Sleep(settle) // let the ctime of the Chtimes age
		s := newStore(t)
		cache := NewStatCache(s.Backend())
		r1 := snap(t, dir, s, Options{Cache: cache})
		r2 := snap(t, dir, s, Options{Cache: cache, Previous: r1.Root})
		if r2.Stats.HashedFiles != 0 {
			t.Fatalf("old file not trusted by the stat cache: read %d", r2.Stats.HashedFiles)
		}
		treetest.MustWrite(t, dir, treetest.Tree{"old.txt": treetest.File("BBBB", 0o644)})
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		r3 := snap(t, dir, s, Options{Cache: cache, Previous: r2.Root})
		return flatten(t, s, r1.Root)["old.txt"].Hash, flatten(t, s, r3.Root)["old.txt"].Hash, r3.Stats.HashedFiles
	}
	a, b := cas.Sum([]byte("AAAA")), cas.Sum([]byte("BBBB"))
	t.Run("without ctime the edit is missed", func(t *testing.T) {
		swapStat(t, noCtime)
		before, after, hashed := run(t)
		if before != a || after != a || hashed != 0 {
			t.Errorf("hashes %s -> %s, read %d; documented: the stale %s, 0 reads", before.Short(), after.Short(), hashed, a.Short())
		}
	})
	t.Run("with ctime the edit is seen", func(t *testing.T) {
		before, after, hashed := run(t)
		if before != a || after != b || hashed != 1 {
			t.Errorf("hashes %s -> %s, read %d; want %s -> %s, 1 read", before.Short(), after.Short(), hashed, a.Short(), b.Short())
		}
	})
}

// TestRecord: files a restore wrote and recorded are trusted by the next
// capture (not read), unless they were written within the racy window.
func TestRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{
		"a.txt":     "a1",
		"sub/b.txt": "b1",
		"sub/c.txt": "c1",
		"d.txt":     "d1",
	})
	time.Sleep(settle)
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	r1 := snap(t, dir, s, Options{Cache: cache})

	// A "restore" rewrites a.txt and sub/b.txt and waits before
	// recording; it rewrites d.txt and records it at once.
	treetest.MustWrite(t, dir, treetest.Tree{"a.txt": treetest.File("a2", 0o644)})
	treetest.MustWrite(t, dir, treetest.Tree{"sub/b.txt": treetest.File("b2", 0o644)})
	time.Sleep(settle)
	treetest.MustWrite(t, dir, treetest.Tree{"d.txt": treetest.File("d2", 0o644)})
	var ws []Written
	for p, data := range map[string]string{"a.txt": "a2", "sub/b.txt": "b2", "d.txt": "d2"} {
		fi, err := os.Lstat(abs(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, Written{Path: p, Hash: cas.Sum([]byte(data)), Info: fi})
	}
	if err := cache.Record(context.Background(), ws, time.Now()); err != nil {
		t.Fatal(err)
	}
	if cacheRecord(cache, "").lookup("d.txt") != nil {
		t.Error("Record trusted a file written within the racy window")
	}
	if cacheRecord(cache, "sub").lookup("c.txt") == nil {
		t.Error("Record dropped the entry of a file it was not given")
	}
	r2 := snap(t, dir, s, Options{Cache: cache, Previous: r1.Root})
	if r2.Stats.HashedFiles != 1 {
		t.Errorf("read %d files, want 1 (d.txt, recorded too early)", r2.Stats.HashedFiles)
	}
	got := flatten(t, s, r2.Root)
	for p, data := range map[string]string{"a.txt": "a2", "sub/b.txt": "b2", "sub/c.txt": "c1", "d.txt": "d2"} {
		if got[p].Hash != cas.Sum([]byte(data)) {
			t.Errorf("%s: hash %s, want that of %q", p, got[p].Hash.Short(), data)
		}
	}
	if err := cache.Record(context.Background(), nil, time.Now()); err != nil {
		t.Errorf("Record(nil): %v", err)
	}
	// A directory where nothing written can be trusted yet is left as
	// it is: no read of its record, no write.
	before, err := cache.b.Get(context.Background(), cacheKey("sub"))
	if err != nil {
		t.Fatal(err)
	}
	treetest.MustWrite(t, dir, treetest.Tree{"sub/b.txt": treetest.File("b3", 0o644)})
	fi, err := os.Lstat(abs(dir, "sub/b.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cache.Record(context.Background(), []Written{{Path: "sub/b.txt", Hash: cas.Sum([]byte("b3")), Info: fi}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if after, err := cache.b.Get(context.Background(), cacheKey("sub")); err != nil || !bytes.Equal(after, before) {
		t.Errorf("Record of an untrusted file changed its directory's record (%v)", err)
	}
	r3 := snap(t, dir, s, Options{Cache: cache, Previous: r2.Root})
	if got := flatten(t, s, r3.Root); got["sub/b.txt"].Hash != cas.Sum([]byte("b3")) {
		t.Errorf("after the skipped record, sub/b.txt captured as %s, want that of b3", got["sub/b.txt"].Hash.Short())
	}
}

// TestCacheNeverPointsAtMissingBlobs: if storing the blobs fails at the
// end of a capture (a full disk, a crash), the stat cache must not keep
// entries naming that content, or the next capture trusts them and makes
// a snapshot whose files are not in the store (invariant 1).
func TestCacheNeverPointsAtMissingBlobs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := range 5 {
		treetest.MustWrite(t, dir, treetest.Tree{fmt.Sprintf("f%d.txt", i): treetest.File(fmt.Sprintf("content %d", i), 0o644)})
	}
	time.Sleep(settle)
	b := newBufBackend()
	s := newStoreOn(t, b)
	cache := NewStatCache(b)

	b.failBlobs.Store(true)
	if _, err := Capture(context.Background(), openRoot(t, dir), s, Options{Cache: cache}); err == nil {
		t.Fatal("Capture succeeded although its blobs could not be written")
	}
	b.failBlobs.Store(false)
	res := snap(t, dir, s, Options{Cache: cache})
	var missing []string
	err := manifest.Walk(context.Background(), manifest.NewStoreLoader(s), res.Root, func(p string, e *manifest.Entry) error {
		if e.Kind == manifest.KindFile && !e.Uncaptured {
			ok, err := s.HasContent(context.Background(), e.Hash)
			if err != nil {
				return err
			}
			if !ok {
				missing = append(missing, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("snapshot %s names content the store lacks for %q (the capture read %d files: it trusted stat cache "+
			"entries that the failed capture wrote before its blobs were stored)", res.Root.Short(), missing, res.Stats.HashedFiles)
	}
}

// TestStatCacheHashes: Hashes names the stored content of every trusted
// cache entry (what gc must keep), not the hash-only entries of files
// over the size limit, and skips undecodable records.
func TestStatCacheHashes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	treetest.PutAll(t, dir, map[string]string{
		"a.txt":     "a",
		"sub/b.txt": "b",
		"over.txt":  "over the limit: hashed, not stored",
	})
	time.Sleep(settle)
	treetest.MustWrite(t, dir, treetest.Tree{"racy.txt": treetest.File("too new", 0o644)})
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	snap(t, dir, s, Options{Cache: cache, SizeLimit: 10})
	if cacheRecord(cache, "").lookup("over.txt") == nil {
		t.Fatal("the file over the limit is not in the stat cache")
	}
	if err := s.Backend().Set(context.Background(), cas.Entry{Key: cacheKey("junk"), Value: []byte("not a record")}); err != nil {
		t.Fatal(err)
	}
	got := map[cas.Hash]bool{}
	if err := cache.Hashes(context.Background(), func(h cas.Hash) error { got[h] = true; return nil }); err != nil {
		t.Fatal(err)
	}
	want := map[cas.Hash]bool{cas.Sum([]byte("a")): true, cas.Sum([]byte("b")): true}
	if len(got) != len(want) || !got[cas.Sum([]byte("a"))] || !got[cas.Sum([]byte("b"))] {
		t.Errorf("Hashes gave %v, want %v", got, want)
	}
	stop := fmt.Errorf("stop")
	if err := cache.Hashes(context.Background(), func(cas.Hash) error { return stop }); err != stop {
		t.Errorf("Hashes did not pass fn's error on: %v", err)
	}
}
