//go:build unix

package walker

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
)

// copiedTree writes n files whose mtimes are whole seconds an hour ago,
// as cp -a or tar leave them; their ctimes are now, with sub-second
// parts on a filesystem that keeps them. It returns the whole-second
// mtime.
func copiedTree(t *testing.T, dir string, n int) time.Time {
	t.Helper()
	mtime := time.Now().Add(-time.Hour).Truncate(time.Second)
	for i := range n {
		rel := fmt.Sprintf("d%d/f%03d.txt", i%7, i)
		treetest.Put(t, dir, rel, fmt.Sprintf("content %03d v0", i))
		if err := os.Chtimes(abs(dir, rel), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	return mtime
}

// TestStatCacheTrustsCopiedMtimes: files with whole-second mtimes (a
// fresh cp -a copy) whose sub-second ctimes are past the racy window are
// trusted by the capture that reads them, so the next capture reads
// nothing. The 2 s window of coarse filesystems applied to them made the
// capture right after the first re-read most of a freshly copied tree.
func TestStatCacheTrustsCopiedMtimes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs sub-second ctimes")
	}
	dir := t.TempDir()
	copiedTree(t, dir, 50)
	time.Sleep(2 * racyWindow)
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	r1 := snap(t, dir, s, Options{Cache: cache})
	r2 := snap(t, dir, s, Options{Cache: cache, Previous: r1.Root})
	if r2.Stats.HashedFiles != 0 {
		t.Errorf("the capture after the first read %d of 50 files, want 0", r2.Stats.HashedFiles)
	}
	if r2.Root != r1.Root {
		t.Errorf("root changed with nothing edited: %s -> %s", r1.Root.Short(), r2.Root.Short())
	}
}

// TestStatCacheWholeSecondEditAttack edits files of a copied tree at
// random moments during captures: same size, the whole-second mtime put
// back. After each round a capture with nothing running beside it must
// record every file's content as it is on disk. Kernels with fine
// ctimes (multigrain, Linux 6.13+) give every rewrite its own ctime, so
// the attack also runs with ctimes cut to a 10 ms clock, as older
// kernels' timestamps were: there the racy window alone stops it.
func TestStatCacheWholeSecondEditAttack(t *testing.T) {
	t.Run("kernel clock", editAttack)
	t.Run("10 ms clock", func(t *testing.T) {
		swapStat(t, func(fi fs.FileInfo) fileStat {
			st := statOf(fi)
			st.ctime -= st.ctime % int64(10*time.Millisecond)
			return st
		})
		editAttack(t)
	})
}

func editAttack(t *testing.T) {
	const n = 120
	dir := t.TempDir()
	mtime := copiedTree(t, dir, n)
	time.Sleep(2 * racyWindow)
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	prev := snap(t, dir, s, Options{Cache: cache}).Root
	rng := rand.New(rand.NewPCG(34, uint64(time.Now().UnixNano())))
	version := make([]int, n)
	rounds := 25
	if testing.Short() || testtier.Short() {
		rounds = 8
	}
	for round := range rounds {
		// The editor rewrites random files from a random moment before
		// the capture until a random moment after it returns: same
		// size, the mtime put back.
		stop := make(chan struct{})
		done := make(chan struct{})
		before := time.Duration(rng.IntN(3000)) * time.Microsecond
		after := time.Duration(rng.IntN(3000)) * time.Microsecond
		seed := rng.Uint64()
		go func() {
			defer close(done)
			r := rand.New(rand.NewPCG(seed, 1))
			for {
				select {
				case <-stop:
					return
				default:
				}
				i := r.IntN(n)
				rel := fmt.Sprintf("d%d/f%03d.txt", i%7, i)
				version[i] = (version[i] + 1) % 10
				treetest.Put(t, dir, rel, fmt.Sprintf("content %03d v%d", i, version[i]))
				if err := os.Chtimes(abs(dir, rel), mtime, mtime); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		time.Sleep(before)
		prev = snap(t, dir, s, Options{Cache: cache, Previous: prev}).Root
		time.Sleep(after)
		close(stop)
		<-done
		// Half the rounds let the edits age past the racy window, so
		// the check below runs on trusted-looking stat data.
		if round%2 == 1 {
			time.Sleep(2 * racyWindow)
		}
		check := snap(t, dir, s, Options{Cache: cache, Previous: prev})
		got := flatten(t, s, check.Root)
		for i := range n {
			rel := fmt.Sprintf("d%d/f%03d.txt", i%7, i)
			want := cas.Sum([]byte(fmt.Sprintf("content %03d v%d", i, version[i])))
			if got[rel].Hash != want {
				t.Fatalf("round %d: %s recorded as %s, on disk v%d (%s): an edit was missed", round, rel, got[rel].Hash.Short(), version[i], want.Short())
			}
		}
		prev = check.Root
	}
}
