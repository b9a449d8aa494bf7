//go:build linux && (amd64 || arm64)

package walker

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
	"golang.org/x/sys/unix"
)

// TestTrustedWithinLocal: on a local filesystem the racy window is
// localRacyWindow; whole-second times still get the wide one.
func TestTrustedWithinLocal(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 500_000_000)
	ns := func(d time.Duration) int64 { return t0.Add(d).UnixNano() }
	old := ns(-time.Hour + 1)
	cases := []struct {
		name         string
		mtime, ctime int64
		want         bool
	}{
		{"ctime at the edge", old, ns(-localRacyWindow), false},
		{"ctime just past the edge", old, ns(-localRacyWindow - 1), true},
		{"mtime at the edge", ns(-localRacyWindow), old, false},
		{"both 50 ms old", ns(-50 * time.Millisecond), ns(-50 * time.Millisecond), true},
		{"ctime in the future", old, ns(time.Millisecond), false},
		{"whole seconds within 2 s", ns(-1500 * time.Millisecond), ns(-1500 * time.Millisecond), false},
		{"no ctime: the default window", ns(-50 * time.Millisecond), 0, false},
		{"no ctime past the default window", ns(-racyWindow - 1), 0, true},
	}
	for _, tc := range cases {
		st := fileStat{size: 1, mtime: tc.mtime, ctime: tc.ctime, ino: 1, mode: 0o644}
		if got := trustedWithin(st, t0, localRacyWindow); got != tc.want {
			t.Errorf("%s: trustedWithin(mtime %d, ctime %d) = %v, want %v", tc.name, tc.mtime, tc.ctime, got, tc.want)
		}
	}
}

// TestLocalRacyWindowTrusts: on a local filesystem, files written more
// than localRacyWindow before a capture are trusted by the next one (a
// script's capture right after a copy reads them once, not twice).
func TestLocalRacyWindowTrusts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if !localDir(t, dir) {
		t.Skipf("%s is not on a local filesystem", dir)
	}
	treetest.MustWrite(t, dir, treetest.Tree{"a.txt": treetest.File("a", 0o644), "d/b.txt": treetest.File("b", 0o644)})
	time.Sleep(localRacyWindow + 30*time.Millisecond) // less than racyWindow
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	r1 := snap(t, dir, s, Options{Cache: cache})
	r2 := snap(t, dir, s, Options{Cache: cache, Previous: r1.Root})
	if r2.Stats.HashedFiles != 0 || r2.Root != r1.Root {
		t.Fatalf("files written %v before the capture: the next capture read %d again; want 0",
			localRacyWindow+30*time.Millisecond, r2.Stats.HashedFiles)
	}
}

// TestRacyRewriteSameStat attacks the narrow window: a file is
// rewritten with the same size and its mtime set back, right after a
// capture that may have trusted it. Only its ctime tells, and the next
// capture must read it.
func TestRacyRewriteSameStat(t *testing.T) {
	t.Parallel()
	rounds := 20
	if testtier.Enabled() {
		rounds = 300
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	content := func(i int) []byte { return []byte{byte('a' + i%26), byte('a' + i/26%26)} }
	mtime := time.Unix(1_600_000_000, 123_456_789)
	var prev cas.Hash
	for i := 0; i < rounds; i++ {
		if err := os.WriteFile(p, content(i), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		// Capture at a random distance from the write: inside the
		// window, at its edge or past it.
		time.Sleep(time.Duration(rng.IntN(int(2 * localRacyWindow))))
		r := snap(t, dir, s, Options{Cache: cache, Previous: prev})
		if got := flatten(t, s, r.Root)["f"].Hash; got != cas.Sum(content(i)) {
			t.Fatalf("round %d: captured %s, want the content written before it %q", i, got.Short(), content(i))
		}
		prev = r.Root
	}
}

// TestLocalClockLag checks what localRacyWindow rests on: a change's
// ctime on a local filesystem is at most one kernel tick, well within
// half the window, behind the wall clock read just before it.
func TestLocalClockLag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if !localDir(t, dir) {
		t.Skipf("%s is not on a local filesystem", dir)
	}
	p := filepath.Join(dir, "f")
	var worst time.Duration
	for i := 0; i < 200; i++ {
		before := time.Now()
		if err := os.WriteFile(p, []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		lag := before.Sub(time.Unix(st.Ctim.Unix()))
		worst = max(worst, lag)
		if i%20 == 0 {
			time.Sleep(time.Duration(i%7) * time.Millisecond)
		}
	}
	if worst > localRacyWindow/2 {
		t.Fatalf("a ctime lagged the wall clock by %v: localRacyWindow (%v) is too narrow here", worst, localRacyWindow)
	}
	t.Logf("worst lag of a ctime behind the wall clock: %v", worst)
}

// localDir reports whether dir is on a local filesystem (see fsTraits).
func localDir(t *testing.T, dir string) bool {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	return localFS(fd)
}
