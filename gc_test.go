package turnback_test

// Library-level tests of the storage lifecycle: automatic retention after
// snaps (turn records, the open turn, the redo stack) and the full gc it
// triggers when the store grows.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
)

// retFolder is a work tree and its store, in a test's temporary directory.
type retFolder struct {
	t     *testing.T
	dir   string
	store string
}

func newRetFolder(t *testing.T) *retFolder {
	t.Helper()
	base := t.TempDir()
	f := &retFolder{t: t, dir: filepath.Join(base, "work"), store: filepath.Join(base, "store")}
	if err := os.MkdirAll(f.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *retFolder) open(opts turnback.Options) *turnback.Repo {
	f.t.Helper()
	opts.Store = f.store
	repo, err := turnback.Open(context.Background(), f.dir, opts)
	if err != nil {
		f.t.Fatal(err)
	}
	return repo
}

func (f *retFolder) write(name string, data []byte) {
	f.t.Helper()
	p := filepath.Join(f.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *retFolder) read(name string) string {
	f.t.Helper()
	data, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(name)))
	if errors.Is(err, fs.ErrNotExist) {
		return "(absent)"
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return string(data)
}

// keys counts the store's keys under each prefix; the store must be
// closed.
func (f *retFolder) keys(prefixes ...string) map[string]int {
	f.t.Helper()
	b, err := cas.OpenBadger(context.Background(), filepath.Join(f.store, "db"), cas.BadgerOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	defer b.Close()
	out := map[string]int{}
	for _, p := range prefixes {
		err := b.Scan(context.Background(), []byte(p), true, func(_, _ []byte) error {
			out[p]++
			return nil
		})
		if err != nil {
			f.t.Fatal(err)
		}
	}
	return out
}

func turnNumbers(ts []*turnback.Turn) []int {
	var out []int
	for _, t := range ts {
		out = append(out, t.N)
	}
	return out
}

// TestRetentionLongSessionBounded: 1,000 small turns with the default
// policy (KeepTurns 100). Automatic retention keeps the session at most
// 110 turns (100 plus the slack of 10) at every point, and the store
// lock records with it. After undo 3, gc (the default policy, then
// --keep 1) leaves the three undone turns on the redo stack, and they redo
// one by one to their states. -short or the fast tier: 300.
func TestRetentionLongSessionBounded(t *testing.T) {
	t.Parallel()
	n := 1000
	if testtier.Short() {
		n = 150
	}
	ctx := t.Context()
	f := newRetFolder(t)
	f.write("f.txt", []byte("0"))
	repo := f.open(turnback.Options{})
	defer func() { repo.Close() }()
	start := time.Now()
	most := 0
	for i := 1; i <= n; i++ {
		res, err := repo.Snap(ctx, fmt.Sprintf("turn %d", i))
		if err != nil {
			t.Fatalf("snap %d: %v", i, err)
		}
		if res.RetentionErr != nil {
			t.Fatalf("snap %d: automatic retention: %v", i, res.RetentionErr)
		}
		if res.Turn != i {
			t.Fatalf("snap %d opened turn %d", i, res.Turn)
		}
		if i%7 == 0 || i > n-15 {
			turns, _, err := repo.Turns(ctx)
			if err != nil {
				t.Fatal(err)
			}
			most = max(most, len(turns))
			if len(turns) > turnback.DefaultKeepTurns+10 {
				t.Fatalf("after snap %d the session has %d turns; want at most %d", i, len(turns), turnback.DefaultKeepTurns+10)
			}
			if turns[0].N != i || !turns[0].Open() {
				t.Fatalf("after snap %d the newest turn is %d (open %v); want the open turn %d", i, turns[0].N, turns[0].Open(), i)
			}
		}
		f.write("f.txt", []byte(fmt.Sprint(i)))
		f.write(fmt.Sprintf("notes/n%d.txt", i%7), []byte(fmt.Sprint(i)))
		if _, err := repo.End(ctx); err != nil {
			t.Fatalf("end %d: %v", i, err)
		}
	}
	t.Logf("%d turns in %v; at most %d turns kept", n, time.Since(start).Round(time.Millisecond), most)
	turns, _, err := repo.Turns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) < turnback.DefaultKeepTurns || len(turns) > turnback.DefaultKeepTurns+10 || turns[0].N != n || turns[0].Open() {
		t.Fatalf("after %d turns the session holds turns %v; want 100 to 110 ending with %d, closed", n, turnNumbers(turns), n)
	}

	if _, err := repo.Undo(ctx, 3, turnback.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := f.read("f.txt"); got != fmt.Sprint(n-3) {
		t.Fatalf("after undo 3 f.txt is %q; want %d", got, n-3)
	}
	repo.Close()
	k := f.keys("m/turn/", "m/snap/")
	t.Logf("store records after %d turns and undo 3: %d turn records, %d snapshot records", n, k["m/turn/"], k["m/snap/"])
	if k["m/turn/"] != len(turns) {
		t.Errorf("the store holds %d turn records; the session has %d turns (3 of them undone)", k["m/turn/"], len(turns))
	}

	repo = f.open(turnback.Options{})
	wantRedo := []int{n, n - 1, n - 2}
	have := len(turns) - 3
	for _, o := range []turnback.GCOptions{{}, {Keep: 1}} {
		res, err := repo.GC(ctx, o)
		if err != nil {
			t.Fatalf("gc %+v: %v", o, err)
		}
		turns, redo, err := repo.Turns(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("gc %+v: %+v; turns %d, redo %v", o, res, len(turns), turnNumbers(redo))
		if fmt.Sprint(turnNumbers(redo)) != fmt.Sprint(wantRedo) {
			t.Fatalf("after gc %+v the redo stack holds %v; want %v", o, turnNumbers(redo), wantRedo)
		}
		keep := o.Keep
		if keep == 0 {
			keep = turnback.DefaultKeepTurns
		}
		if len(turns) != min(keep, have) || turns[0].N != n-3 || res.TurnsForgotten != have-len(turns) {
			t.Fatalf("after gc %+v (%d forgotten) the session holds %v; want the newest %d of %d, ending with %d", o, res.TurnsForgotten, turnNumbers(turns), keep, have, n-3)
		}
		have = len(turns)
	}
	if _, err := repo.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	for i := n - 2; i <= n; i++ {
		if _, err := repo.Redo(ctx, 1, turnback.RedoOptions{}); err != nil {
			t.Fatalf("redo of turn %d: %v", i, err)
		}
		if got := f.read("f.txt"); got != fmt.Sprint(i) {
			t.Fatalf("after the redo of turn %d f.txt is %q", i, got)
		}
	}
	// The kept turn and the three redone ones undo back to before the
	// kept one.
	if _, err := repo.Undo(ctx, 4, turnback.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := f.read("f.txt"); got != fmt.Sprint(n-4) {
		t.Fatalf("after undo 4 f.txt is %q; want %d", got, n-4)
	}
	turns, redo, err := repo.Turns(ctx)
	if err != nil {
		t.Fatal(err)
	}
	repo.Close()
	k = f.keys("m/turn/", "m/snap/")
	t.Logf("after gc: %d turn records, %d snapshot records", k["m/turn/"], k["m/snap/"])
	if k["m/turn/"] != len(turns)+len(redo) || k["m/turn/"] != 4 {
		t.Errorf("after gc the store holds %d turn records; want the 4 the session has", k["m/turn/"])
	}
}

// TestRetentionKeepsOpenTurn: with the tightest policy (keep 1 turn, for
// 1 ns), automatic retention after every snap trims the session yet never
// removes the turn the snap just opened, whether the previous turn was
// closed by end or by that snap; ends land on it and undo works.
func TestRetentionKeepsOpenTurn(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	f := newRetFolder(t)
	f.write("f.txt", []byte("0"))
	repo := f.open(turnback.Options{KeepTurns: 1, KeepAge: time.Nanosecond})
	defer repo.Close()
	for i := 1; i <= 40; i++ {
		res, err := repo.Snap(ctx, fmt.Sprintf("turn %d", i))
		if err != nil {
			t.Fatal(err)
		}
		if res.RetentionErr != nil {
			t.Fatalf("snap %d: automatic retention: %v", i, res.RetentionErr)
		}
		turns, _, err := repo.Turns(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(turns) == 0 || turns[0].N != res.Turn || !turns[0].Open() || turns[0].Message != fmt.Sprintf("turn %d", i) {
			t.Fatalf("after snap %d (turn %d) the session holds %v; want that turn, open, first", i, res.Turn, turnNumbers(turns))
		}
		if len(turns) > 1+10 {
			t.Fatalf("after snap %d the session holds %d turns; want at most 11", i, len(turns))
		}
		time.Sleep(time.Millisecond)
		f.write("f.txt", []byte(fmt.Sprint(i)))
		if i%3 == 0 {
			continue // the next snap closes this turn
		}
		end, err := repo.End(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if end.NoOpenTurn || end.Turn != res.Turn || end.Closed == nil || end.Dropped {
			t.Fatalf("end after snap %d: %+v; want turn %d closed", i, end, res.Turn)
		}
	}
	if _, err := repo.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := f.read("f.txt"); got != "39" {
		t.Fatalf("after undo f.txt is %q; want 39", got)
	}
	if _, err := repo.Verify(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestRetentionAutoGCBoundsStore: with KeepTurns 5, turns that each
// rewrite a 3 MiB file of random bytes grow the store past 256 MiB by
// turn 100, where the automatic full gc (every 50th turn, once the store
// has doubled) brings it back to about the kept versions. Not in -short.
func TestRetentionAutoGCBoundsStore(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("writes 300 MiB")
	}
	const size = 3 << 20
	ctx := t.Context()
	f := newRetFolder(t)
	repo := f.open(turnback.Options{KeepTurns: 5})
	defer repo.Close()
	version := func(i int) []byte {
		var seed [32]byte
		seed[0], seed[1] = byte(i), byte(i>>8)
		b := make([]byte, size)
		rand.NewChaCha8(seed).Read(b)
		return b
	}
	f.write("big.bin", version(0))
	var peak int64
	start := time.Now()
	for i := 1; i <= 100; i++ {
		res, err := repo.Snap(ctx, fmt.Sprintf("turn %d", i))
		if err != nil {
			t.Fatal(err)
		}
		if res.RetentionErr != nil {
			t.Fatalf("snap %d: automatic retention: %v", i, res.RetentionErr)
		}
		du := treetest.DiskUsage(t, f.store)
		peak = max(peak, du)
		if i == 50 || i == 100 {
			t.Logf("after snap %d: du %.1f MiB", i, float64(du)/(1<<20))
		}
		f.write("big.bin", version(i))
		if _, err := repo.End(ctx); err != nil {
			t.Fatal(err)
		}
	}
	repo.Close()
	du := treetest.DiskUsage(t, f.store)
	// After the gc at turn 100: the 5 kept turns (6 versions; 7 with the
	// new one) plus a margin.
	limit := int64(8*size + 32<<20)
	t.Logf("100 turns of %d MiB in %v; du peak %.1f MiB, at the end %.1f MiB (limit %.1f MiB)", size>>20,
		time.Since(start).Round(time.Millisecond), float64(peak)/(1<<20), float64(du)/(1<<20), float64(limit)/(1<<20))
	if du > limit {
		t.Errorf("after 100 turns with KeepTurns 5 the store takes %d bytes; want at most %d (the automatic gc did not reclaim)", du, limit)
	}
	k := f.keys("m/turn/", "m/snap/", "m/gc")
	if k["m/gc"] != 1 || k["m/turn/"] > 5+10 || k["m/snap/"] > 20 {
		t.Errorf("store records after the automatic gc: %v; want the gc record, at most 15 turns, few snapshots", k)
	}
}
