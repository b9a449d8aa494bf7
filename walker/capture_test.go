//go:build unix

package walker

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

// long255 is a 255-byte name (the longest most filesystems allow) made
// of two-byte runes.
var long255 = strings.Repeat("é", 127) + "z"

// pseudoRandom returns n deterministic, incompressible bytes.
func pseudoRandom(seed uint64, n int) string {
	b := make([]byte, n)
	x := seed | 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
	return string(b)
}

// captureNodes is a work tree with every kind of entry Capture records.
func captureNodes() []node {
	return []node{
		fileNode("plain.txt", 0o644, "hello\n"),
		fileNode("empty.txt", 0o644, ""),
		fileNode("exec.sh", 0o755, "#!/bin/sh\necho hi\n"),
		fileNode("readonly.txt", 0o444, "read only"),
		fileNode("private", 0o600, "mine"),
		fileNode("setuid-bin", 0o4755, "pretend binary"),
		fileNode("name with spaces.txt", 0o644, "spaces"),
		fileNode("-leading-dash", 0o644, "dash"),
		fileNode("--", 0o644, "double dash"),
		fileNode("-rf", 0o644, "not an option"),
		fileNode("ünïcödé-日本語-🙂.txt", 0o644, "unicode"),
		fileNode("\xff\xfe not utf-8", 0o644, "raw bytes in the name"),
		fileNode("new\nline\ttab", 0o644, "control characters"),
		fileNode("*glob?[x]!#", 0o644, "pattern characters"),
		fileNode(long255, 0o644, "255-byte name"),
		fileNode("build", 0o644, "a file named like a built-in ignored dir"),
		fileNode(".env", 0o600, "SECRET=1\n"),
		fileNode("big.bin", 0o644, pseudoRandom(7, cas.SmallFileMax+12345)), // chunked
		dirNode("empty-dir", 0o755),
		dirNode("a", 0o755),
		dirNode("a/b", 0o750),
		dirNode("a/b/c", 0o700),
		fileNode("a/b/c/deep.txt", 0o640, "deep"),
		dirNode("a/b/empty", 0o755),
		dirNode("setgid-dir", 0o2775),
		fileNode("setgid-dir/f", 0o664, "in a setgid dir"),
		dirNode("sticky", 0o1777),
		dirNode("readonly-dir", 0o555),
		fileNode("readonly-dir/x", 0o644, "in a read-only dir"),
		dirNode(strings.Repeat("d", 255), 0o755),
		fileNode(strings.Repeat("d", 255)+"/"+long255, 0o644, "255 below 255"),
		dirNode("links", 0o755),
		linkNode("links/self", "self"),
		linkNode("links/root", "/"),
		linkNode("links/dangling", "does/not/exist"),
		linkNode("links/up", "../../outside/the/tree"),
		linkNode("links/to-dir", "../a"),
		linkNode("links/to-file", "../plain.txt"),
		linkNode("links/abs", "/etc/passwd"),
		linkNode("links/"+long255, strings.Repeat("x/", 1000)+"end"),
		linkNode("links/ünï cödé", "-> spaces and ünïcödé"),
	}
}

func TestCaptureOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	nodes := captureNodes()
	build(t, dir, nodes)
	s := newStore(t)
	var prog Progress
	res := snap(t, dir, s, Options{Progress: &prog})
	checkSnapshot(t, s, dir, res.Root, nodes)

	files, dirs, links, size := countKinds(nodes)
	st := res.Stats
	if st.Files != files || st.Dirs != dirs+1 || st.Symlinks != links || st.Bytes != size {
		t.Errorf("stats files/dirs/symlinks/bytes = %d/%d/%d/%d, want %d/%d/%d/%d",
			st.Files, st.Dirs, st.Symlinks, st.Bytes, files, dirs+1, links, size)
	}
	if st.HashedFiles != files || st.HashedBytes != size {
		t.Errorf("hashed %d files, %d bytes; want %d, %d (no cache)", st.HashedFiles, st.HashedBytes, files, size)
	}
	if st.Skipped != 0 || len(st.Problems) != 0 || len(st.Uncaptured) != 0 {
		t.Errorf("skipped %d, problems %v, uncaptured %v", st.Skipped, st.Problems, st.Uncaptured)
	}
	if st.NewBlobs == 0 || st.NewBytes == 0 {
		t.Errorf("new blobs %d, new bytes %d", st.NewBlobs, st.NewBytes)
	}
	if prog.Files.Load() != st.Files || prog.HashedFiles.Load() != st.HashedFiles || prog.HashedBytes.Load() != st.HashedBytes {
		t.Errorf("progress %d/%d/%d, stats %d/%d/%d", prog.Files.Load(), prog.HashedFiles.Load(), prog.HashedBytes.Load(),
			st.Files, st.HashedFiles, st.HashedBytes)
	}

	got := flatten(t, s, res.Root)
	for _, p := range []string{"empty-dir", "a/b/empty"} {
		if h := got[p].Hash; h != manifest.EmptyTreeHash() {
			t.Errorf("%q: hash %s, want the empty tree %s", p, h.Short(), manifest.EmptyTreeHash().Short())
		}
	}
	if h := got["empty.txt"].Hash; h != cas.EmptyHash {
		t.Errorf("empty file hash %s, want %s", h.Short(), cas.EmptyHash.Short())
	}
	// The root hash is the hash of the root tree's encoding.
	data, err := s.GetBlob(context.Background(), res.Root)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := manifest.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if h, _, _ := tr.Hash(); h != res.Root {
		t.Errorf("root tree hashes to %s, root is %s", h.Short(), res.Root.Short())
	}
}

func TestCaptureEmptyWorkTree(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	res := snap(t, t.TempDir(), s, Options{})
	if res.Root != manifest.EmptyTreeHash() {
		t.Errorf("root %s, want the empty tree", res.Root.Short())
	}
	if res.Stats.Dirs != 1 || res.Stats.Files != 0 {
		t.Errorf("stats %+v", res.Stats)
	}
}

// TestCaptureSkipsSpecialFiles: fifos are counted as skipped, never
// opened (opening a fifo would block) and not recorded.
// TestCaptureSpecialFiles: fifos are recorded (never opened: opening one
// would block the capture until the timeout), sockets are skipped.
func TestCaptureSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	treetest.MustWrite(t, dir, treetest.Tree{"a.txt": treetest.File("a", 0o644)})
	mkdirAll(t, dir, "sub")
	for _, p := range []string{"fifo", "sub/fifo"} {
		if err := syscall.Mkfifo(abs(dir, p), 0o640); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	ln, err := net.Listen("unix", abs(dir, "sock"))
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	defer ln.Close()
	s := newStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := Capture(ctx, openRoot(t, dir), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !recordFIFOs { // skipped where restores cannot remake them
		if res.Stats.Skipped != 3 || pathsOf(flatten(t, s, res.Root))[0] != "a.txt" {
			t.Errorf("skipped %d, want 3", res.Stats.Skipped)
		}
		return
	}
	if res.Stats.Skipped != 1 || res.Stats.FIFOs != 2 {
		t.Errorf("skipped %d, fifos %d; want 1 and 2", res.Stats.Skipped, res.Stats.FIFOs)
	}
	got := flatten(t, s, res.Root)
	if p := pathsOf(got); strings.Join(p, ",") != "a.txt,fifo,sub,sub/fifo" {
		t.Errorf("snapshot paths %q", p)
	}
	if e, want := got["sub/fifo"], (manifest.Entry{Name: "fifo", Kind: manifest.KindFIFO, Mode: 0o640}); e != want {
		t.Errorf("sub/fifo: %+v, want %+v", e, want)
	}
}

// TestDeterminism: the root depends on content, kinds, names, permission
// bits and link targets only, never on timestamps or on the stat cache.
func TestDeterminism(t *testing.T) {
	t.Parallel()
	base := []node{
		fileNode("a.txt", 0o644, "alpha"),
		fileNode("sub/b.txt", 0o600, "beta"),
		dirNode("sub", 0o755),
		dirNode("sub/empty", 0o755),
		linkNode("sub/l", "../a.txt"),
		fileNode("x.sh", 0o755, "#!/bin/sh\n"),
	}
	later := time.Now().Add(time.Hour)
	cases := []struct {
		name   string
		change func(t *testing.T, dir string)
		same   bool
	}{
		{"unchanged", func(*testing.T, string) {}, true},
		{"touch file", func(t *testing.T, dir string) {
			if err := os.Chtimes(abs(dir, "sub/b.txt"), later, later); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"touch dir", func(t *testing.T, dir string) {
			if err := os.Chtimes(abs(dir, "sub"), later, later); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"chmod and back", func(t *testing.T, dir string) {
			chmod(t, dir, "a.txt", 0o600)
			chmod(t, dir, "a.txt", 0o644)
		}, true},
		{"rewrite same content", func(t *testing.T, dir string) {
			treetest.MustWrite(t, dir, treetest.Tree{"a.txt": treetest.File("alpha", 0o644)})
		}, true},
		{"replace by a copy (new inode)", func(t *testing.T, dir string) {
			treetest.MustWrite(t, dir, treetest.Tree{"a.tmp": treetest.File("alpha", 0o644)})
			if err := os.Rename(abs(dir, "a.tmp"), abs(dir, "a.txt")); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"recreate empty dir", func(t *testing.T, dir string) {
			removeAll(t, dir, "sub/empty")
			mkdirAll(t, dir, "sub/empty")
		}, true},
		{"chmod file", func(t *testing.T, dir string) { chmod(t, dir, "a.txt", 0o640) }, false},
		{"chmod dir", func(t *testing.T, dir string) { chmod(t, dir, "sub", 0o700) }, false},
		{"edit same size", func(t *testing.T, dir string) {
			treetest.MustWrite(t, dir, treetest.Tree{"a.txt": treetest.File("ALPHA", 0o644)})
		}, false},
		{"append", func(t *testing.T, dir string) {
			treetest.MustWrite(t, dir, treetest.Tree{"a.txt": treetest.File("alpha!", 0o644)})
		}, false},
		{"rename", func(t *testing.T, dir string) {
			if err := os.Rename(abs(dir, "a.txt"), abs(dir, "A.txt")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"new empty dir", func(t *testing.T, dir string) { mkdirAll(t, dir, "sub/empty2") }, false},
		{"retarget link", func(t *testing.T, dir string) {
			removeAll(t, dir, "sub/l")
			if err := os.Symlink("../x.sh", abs(dir, "sub/l")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"file becomes empty dir", func(t *testing.T, dir string) {
			removeAll(t, dir, "x.sh")
			mkdirAll(t, dir, "x.sh")
		}, false},
	}
	for _, withCache := range []bool{false, true} {
		for _, tc := range cases {
			name := tc.name
			if withCache {
				name += "/cached"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				build(t, dir, base)
				s := newStore(t)
				opts := Options{}
				if withCache {
					ageTree(t, dir)
					time.Sleep(settle)
					opts.Cache = NewStatCache(s.Backend())
				}
				r1 := snap(t, dir, s, opts)
				r2 := snap(t, dir, s, opts)
				if r1.Root != r2.Root {
					t.Fatalf("two captures of an unchanged tree: %s then %s", r1.Root.Short(), r2.Root.Short())
				}
				tc.change(t, dir)
				opts.Previous = r1.Root
				r3 := snap(t, dir, s, opts)
				if same := r3.Root == r1.Root; same != tc.same {
					t.Errorf("root unchanged = %v, want %v", same, tc.same)
				}
				// Whatever the cache and Previous, the result is what a
				// fresh capture into an empty store gives.
				fresh := snap(t, dir, newStore(t), Options{})
				if fresh.Root != r3.Root {
					t.Errorf("capture with cache/previous gives %s, a fresh capture %s", r3.Root.Short(), fresh.Root.Short())
				}
				flatten(t, s, r3.Root) // every tree is stored and decodes
			})
		}
	}
}

// TestSizeLimit: a file over the limit is uncaptured: noted with its
// kind, size and content hash (it is read, so that a same-size edit
// changes the tree) but its content is not stored.
func TestSizeLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("limit", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		overData := strings.Repeat("b", 101)
		build(t, dir, []node{
			fileNode("at-limit", 0o644, strings.Repeat("a", 100)),
			dirNode("sub", 0o755),
			fileNode("sub/over", 0o640, overData),
			fileNode("small", 0o644, "s"),
		})
		ageTree(t, dir)
		time.Sleep(settle)
		s := newStore(t)
		cache := NewStatCache(s.Backend())
		res := snap(t, dir, s, Options{SizeLimit: 100, Cache: cache})
		got := flatten(t, s, res.Root)
		over := got["sub/over"]
		want := manifest.Entry{Name: "over", Kind: manifest.KindFile, Mode: 0o640, Size: 101, Hash: cas.Sum([]byte(overData)), Uncaptured: true}
		if over != want {
			t.Errorf("over the limit: %+v, want %+v", over, want)
		}
		if ok, err := s.HasContent(ctx, over.Hash); err != nil || ok {
			t.Errorf("content over the limit stored: %v, %v", ok, err)
		}
		if e := got["at-limit"]; e.Uncaptured || e.Hash != cas.Sum([]byte(strings.Repeat("a", 100))) {
			t.Errorf("at the limit: %+v, want captured", e)
		}
		if len(res.Stats.Uncaptured) != 1 {
			t.Fatalf("uncaptured %+v, want one", res.Stats.Uncaptured)
		}
		u := res.Stats.Uncaptured[0]
		if u.Path != "sub/over" || u.Kind != "file" || u.Size != 101 || u.Files != 0 || !strings.Contains(u.Reason, "size limit") {
			t.Errorf("uncaptured %+v", u)
		}
		if st := res.Stats; st.Files != 3 || st.Bytes != 101 || st.HashedFiles != 3 || len(st.Problems) != 0 {
			t.Errorf("stats %+v, want 3 files, 3 read, 101 bytes captured", st)
		}

		// Unchanged: same root, nothing read, still uncaptured.
		again := snap(t, dir, s, Options{SizeLimit: 100, Cache: cache, Previous: res.Root})
		if again.Root != res.Root || again.Stats.HashedFiles != 0 || len(again.Stats.Uncaptured) != 1 {
			t.Errorf("unchanged: root same %v, read %d, uncaptured %+v", again.Root == res.Root, again.Stats.HashedFiles, again.Stats.Uncaptured)
		}
		// A same-size edit changes the snapshot.
		treetest.MustWrite(t, dir, treetest.Tree{"sub/over": treetest.File(strings.Repeat("c", 101), 0o640)})
		edited := snap(t, dir, s, Options{SizeLimit: 100, Cache: cache, Previous: res.Root})
		if e := flatten(t, s, edited.Root)["sub/over"]; edited.Root == res.Root || e.Hash != cas.Sum([]byte(strings.Repeat("c", 101))) || !e.Uncaptured {
			t.Errorf("same-size edit over the limit: root changed %v, entry %+v", edited.Root != res.Root, e)
		}
		// Limit raised: the hash-only cache entry must not be trusted;
		// the file is read and stored.
		time.Sleep(settle)
		snap(t, dir, s, Options{SizeLimit: 100, Cache: cache}) // cache the edit
		raised := snap(t, dir, s, Options{SizeLimit: -1, Cache: cache})
		e := flatten(t, s, raised.Root)["sub/over"]
		if e.Uncaptured || raised.Stats.HashedFiles != 1 {
			t.Errorf("limit raised: %+v, read %d; want captured, 1 read", e, raised.Stats.HashedFiles)
		}
		if ok, err := s.HasContent(ctx, e.Hash); err != nil || !ok {
			t.Errorf("limit raised: content not stored: %v, %v", ok, err)
		}
	})
	t.Run("default and no limit", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		data := strings.Repeat("0123456789abcdef", (DefaultSizeLimit+16)/16)[:DefaultSizeLimit+1]
		treetest.MustWrite(t, dir, treetest.Tree{"huge": treetest.File(data, 0o644)})
		s := newStore(t)
		res := snap(t, dir, s, Options{}) // 0: the default limit
		e := flatten(t, s, res.Root)["huge"]
		if !e.Uncaptured || e.Size != int64(len(data)) || e.Hash != cas.Sum([]byte(data)) {
			t.Errorf("default limit: %+v, want uncaptured", e)
		}
		if ok, _ := s.HasContent(ctx, e.Hash); ok || res.Stats.NewBlobs != 1 { // the root tree only
			t.Errorf("default limit: content stored %v, new blobs %d", ok, res.Stats.NewBlobs)
		}
		res = snap(t, dir, s, Options{SizeLimit: -1})
		if e := flatten(t, s, res.Root)["huge"]; e.Uncaptured || e.Hash != cas.Sum([]byte(data)) {
			t.Errorf("no limit: %+v, want captured", e)
		}
		if ok, _ := s.HasContent(ctx, e.Hash); !ok || len(res.Stats.Uncaptured) != 0 {
			t.Errorf("no limit: content stored %v, uncaptured %+v", ok, res.Stats.Uncaptured)
		}
	})
}

func TestCancelled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	genTree(t, dir, 5, 20)
	b := newBufBackend()
	s := newStoreOn(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Capture(ctx, openRoot(t, dir), s, Options{Cache: NewStatCache(b)})
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("Capture with a cancelled context = %v, %v; want context.Canceled", res, err)
	}
	if keys := cacheKeys(t, b); len(keys) != 0 {
		t.Errorf("a cancelled capture recorded stat cache entries %q", keys)
	}
}

// TestCancelledMidway cancels the context from inside the walk (at the
// 50th file) and expects an error and nothing recorded.
func TestCancelledMidway(t *testing.T) {
	dir := t.TempDir()
	genTree(t, dir, 10, 20)
	ageTree(t, dir)
	b := newBufBackend()
	s := newStoreOn(t, b)
	var (
		mu     sync.Mutex
		calls  int
		cancel context.CancelFunc
	)
	swapStat(t, func(fi os.FileInfo) fileStat {
		mu.Lock()
		calls++
		if calls == 50 {
			cancel()
		}
		mu.Unlock()
		return statOf(fi)
	})
	for _, workers := range []int{1, 8} {
		var ctx context.Context
		mu.Lock()
		ctx, cancel = context.WithCancel(context.Background())
		calls = 0
		mu.Unlock()
		res, err := Capture(ctx, openRoot(t, dir), s, Options{Cache: NewStatCache(b), Workers: workers})
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Fatalf("workers %d: Capture cancelled midway = %v, %v; want context.Canceled", workers, res, err)
		}
		mu.Lock()
		if calls < 50 {
			t.Errorf("workers %d: only %d files were looked at", workers, calls)
		}
		cancel()
		mu.Unlock()
	}
	if keys := cacheKeys(t, b); len(keys) != 0 {
		t.Errorf("a cancelled capture recorded stat cache entries %q", keys)
	}
}

// TestWorkers: the result does not depend on the degree of parallelism.
// Its tree of 20 directories (40 with their subdirectories) and 1,000
// files keeps 16 workers busy.
func TestWorkers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	n := genTree(t, dir, 20, 50)
	treetest.MustWrite(t, dir, treetest.Tree{"d00/.gitignore": treetest.File("*1.txt\n", 0o644)})
	var roots []cas.Hash
	var stats []Stats
	ageTree(t, dir)
	start := time.Now()
	for _, w := range []int{1, 16} {
		res := snap(t, dir, newStore(t), Options{Workers: w})
		roots = append(roots, res.Root)
		stats = append(stats, res.Stats)
	}
	for i := range roots {
		if roots[i] != roots[0] {
			t.Errorf("capture %d: root %s, capture 0: %s", i, roots[i].Short(), roots[0].Short())
		}
		s := stats[i]
		if s.Files != stats[0].Files || s.Dirs != stats[0].Dirs || s.Bytes != stats[0].Bytes {
			t.Errorf("capture %d: stats %+v, capture 0: %+v", i, s, stats[0])
		}
	}
	if stats[0].Files != int64(n-5+1) { // d00 has 5 ignored *1.txt files of 50, plus its .gitignore
		t.Errorf("files %d, want %d", stats[0].Files, n-5+1)
	}
	// Concurrent captures with a shared cache and store, for the race
	// detector.
	time.Sleep(settle - time.Since(start))
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	first := snap(t, dir, s, Options{Workers: 16, Cache: cache})
	done := make(chan *Result, 2)
	for range 2 {
		root := openRoot(t, dir)
		go func() {
			res, err := Capture(context.Background(), root, s, Options{Workers: 16, Cache: cache, Previous: first.Root})
			if err != nil {
				t.Error(err)
			}
			done <- res
		}()
	}
	for range 2 {
		if res := <-done; res != nil && res.Root != roots[0] {
			t.Errorf("concurrent capture: root %s, want %s", res.Root.Short(), roots[0].Short())
		}
	}
}
