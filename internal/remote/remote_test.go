package remote

import (
	"errors"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/cas/s3/s3test"
	"github.com/turnback/turnback/manifest/treetest"
)

// rtSession records 5 turns in a new folder and returns the repo, the
// folder's tree after each turn and the turns.
func rtSession(t *testing.T, session string) (*turnback.Repo, []treetest.Tree, []*turnback.Turn) {
	t.Helper()
	ctx := t.Context()
	dir, store := t.TempDir(), t.TempDir()
	rng := rand.New(rand.NewSource(1))
	big := make([]byte, 3<<20) // chunked content
	rng.Read(big)
	treetest.Put(t, dir, "big.bin", string(big))
	for i := range 40 {
		treetest.Put(t, dir, "src/pkg"+string(rune('a'+i%5))+"/f"+string(rune('a'+i))+".go",
			strings.Repeat("package x // "+string(rune('a'+i))+"\n", 50+i))
	}
	r, err := turnback.Open(ctx, dir, turnback.Options{Store: store, Session: session})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	var states []treetest.Tree
	for turn := 1; turn <= 5; turn++ {
		if _, err := r.Snap(ctx, "turn"); err != nil {
			t.Fatal(err)
		}
		treetest.Put(t, dir, "src/turn.txt", strings.Repeat("turn ", turn))
		big[turn*100000] ^= 0xff
		treetest.Put(t, dir, "big.bin", string(big))
		if turn == 2 {
			if err := os.Symlink("src/turn.txt", filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
		}
		if turn == 4 {
			if err := os.RemoveAll(filepath.Join(dir, "src", "pkga")); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := r.End(ctx); err != nil {
			t.Fatal(err)
		}
		states = append(states, treetest.MustRead(t, dir))
	}
	turns, _, err := r.Turns(ctx)
	if err != nil || len(turns) != 5 {
		t.Fatalf("%d turns, %v", len(turns), err)
	}
	return r, states, turns
}

// TestRemoteCloneExact: A records 5 turns and pushes; B clones the
// session into an empty folder on another store: B's folder is A's
// after turn 5, undo gives A's after turn 4, redo turn 5 again, restore
// of turn 3's after-state A's after turn 3, byte for byte; the clone
// downloads no record twice and little else; a second push sends no
// pack.
func TestRemoteCloneExact(t *testing.T) {
	srv := s3test.Start(t)
	ctx := t.Context()
	a, states, turns := rtSession(t, "sess-a")
	c := srv.Client(t, "bucket-a", "team/x")
	pr, err := Push(ctx, a, c, PushOptions{PackSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Objects == 0 || pr.Packs < 2 || pr.Heads != 1 || pr.ObjectsDeduplicated != 0 {
		t.Fatalf("first push: %+v", pr)
	}
	again, err := Push(ctx, a, c, PushOptions{})
	if err != nil || again.Packs != 0 || again.Heads != 0 || again.ObjectsDeduplicated != pr.Objects {
		t.Fatalf("second push: %+v %v", again, err)
	}
	dirB, storeB := filepath.Join(t.TempDir(), "b"), t.TempDir()
	cb := srv.Client(t, "bucket-a", "team/x")
	res, err := Clone(ctx, cb, srv.Config("bucket-a", "team/x"), dirB, turnback.Options{Store: storeB, Session: "sess-a"})
	if err != nil {
		t.Fatal(err)
	}
	treetest.Equal(t, "clone", treetest.MustRead(t, dirB), states[4])
	var recordBytes int64
	for h, n := range res.Pull.Fetched {
		if n != 1 {
			t.Errorf("record %s downloaded %d times", h.Short(), n)
		}
	}
	recordBytes = res.Pull.RecordBytes
	if res.Pull.BytesReceived > recordBytes+recordBytes/10+64<<10 {
		t.Errorf("received %d bytes for %d bytes of records", res.Pull.BytesReceived, recordBytes)
	}
	b, err := turnback.Open(ctx, dirB, turnback.Options{Store: storeB, Session: "sess-a"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	treetest.Equal(t, "undo", treetest.MustRead(t, dirB), states[3])
	if _, err := b.Redo(ctx, 1, turnback.RedoOptions{}); err != nil {
		t.Fatal(err)
	}
	treetest.Equal(t, "redo", treetest.MustRead(t, dirB), states[4])
	var t3 *turnback.Turn
	for _, x := range turns {
		if x.N == 3 {
			t3 = x
		}
	}
	if _, err := b.Restore(ctx, t3.AfterID, turnback.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	treetest.Equal(t, "restore turn 3", treetest.MustRead(t, dirB), states[2])
	if v, err := b.Verify(ctx); err != nil {
		t.Fatalf("verify B: %+v %v", v, err)
	}
	if v, err := Verify(ctx, c); err != nil || v.Heads != 1 || v.Packs != pr.Packs {
		t.Fatalf("remote verify: %+v %v", v, err)
	}
}

// TestRemoteCorruptPack: one flipped byte in a pack object on the
// server fails the clone with an error naming the object; the target
// folder stays empty and the clone's store is removed. remote verify
// names it too.
func TestRemoteCorruptPack(t *testing.T) {
	srv := s3test.Start(t)
	ctx := t.Context()
	a, _, _ := rtSession(t, "s")
	c := srv.Client(t, "bucket-c", "p")
	if _, err := Push(ctx, a, c, PushOptions{PackSize: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	packs, _ := filepath.Glob(filepath.Join(srv.Root, "bucket-c", "p", "packs", "*.pack"))
	if len(packs) < 2 {
		t.Fatalf("packs: %v", packs)
	}
	for _, p := range packs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)-10] ^= 0x01
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		name := "p/packs/" + filepath.Base(p)
		dirB, storeB := t.TempDir(), filepath.Join(t.TempDir(), "store")
		_, err = Clone(ctx, c, srv.Config("bucket-c", "p"), dirB, turnback.Options{Store: storeB, Session: "s"})
		if !errors.Is(err, cas.ErrCorrupt) || !strings.Contains(err.Error(), name) {
			t.Fatalf("clone of a damaged %s: %v", name, err)
		}
		if ents, _ := os.ReadDir(dirB); len(ents) != 0 {
			t.Fatalf("target folder written: %v", ents)
		}
		if _, err := os.Stat(storeB); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("store left: %v", err)
		}
		v, err := Verify(ctx, c)
		if !errors.Is(err, turnback.ErrVerify) || len(v.Problems) == 0 || !strings.Contains(strings.Join(v.Problems, "\n"), name) {
			t.Fatalf("remote verify: %+v %v", v, err)
		}
		data[len(data)-10] ^= 0x01
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Verify(ctx, c); err != nil {
		t.Fatal(err)
	}
	// A missing pack: the same, naming it.
	if err := os.Remove(packs[0]); err != nil {
		t.Fatal(err)
	}
	name := "p/packs/" + filepath.Base(packs[0])
	dirB, storeB := t.TempDir(), filepath.Join(t.TempDir(), "store")
	_, err := Clone(ctx, c, srv.Config("bucket-c", "p"), dirB, turnback.Options{Store: storeB, Session: "s"})
	if !errors.Is(err, s3.ErrNotFound) || !strings.Contains(err.Error(), name) {
		t.Fatalf("clone with a missing %s: %v", name, err)
	}
	if ents, _ := os.ReadDir(dirB); len(ents) != 0 {
		t.Fatalf("target folder written: %v", ents)
	}
	if v, err := Verify(ctx, c); !errors.Is(err, turnback.ErrVerify) || !strings.Contains(strings.Join(v.Problems, "\n"), "index without its pack") {
		t.Fatalf("remote verify: %+v %v", v, err)
	}
}

// TestRemotePullDivergedGC: B clones A's session; A records turn 6 and
// pushes; B's pull brings it (B's folder untouched; restoring turn 6's
// after-state gives A's folder). Then each records a different turn 7:
// B's pull is refused as diverged. remote gc (dry, then two runs)
// removes only the replaced heads; the remote verifies and clones as A's
// folder.
func TestRemotePullDivergedGC(t *testing.T) {
	srv := s3test.Start(t)
	ctx := t.Context()
	a, states, _ := rtSession(t, "s")
	c := srv.Client(t, "bucket-p", "")
	if _, err := Push(ctx, a, c, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	dirB, storeB := t.TempDir(), filepath.Join(t.TempDir(), "store")
	if _, err := Clone(ctx, c, srv.Config("bucket-p", ""), dirB, turnback.Options{Store: storeB, Session: "s"}); err != nil {
		t.Fatal(err)
	}
	b, err := turnback.Open(ctx, dirB, turnback.Options{Store: storeB, Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	turn := func(r *turnback.Repo, name, data string) *turnback.Turn {
		t.Helper()
		if _, err := r.Snap(ctx, ""); err != nil {
			t.Fatal(err)
		}
		treetest.Put(t, r.WorkTree(), name, data)
		if _, err := r.End(ctx); err != nil {
			t.Fatal(err)
		}
		turns, _, err := r.Turns(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return turns[0] // newest first
	}
	t6 := turn(a, "six.txt", "six")
	want6 := treetest.MustRead(t, a.WorkTree())
	if _, err := Push(ctx, a, c, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	pr, err := Pull(ctx, b, c, PullOptions{})
	if err != nil || pr.Turns != 6 {
		t.Fatalf("pull: %+v %v", pr, err)
	}
	treetest.Equal(t, "after pull", treetest.MustRead(t, dirB), states[4])
	if _, err := b.Restore(ctx, t6.AfterID, turnback.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	treetest.Equal(t, "turn 6", treetest.MustRead(t, dirB), want6)
	turn(b, "seven.txt", "B's")
	turn(a, "seven.txt", "A's")
	if _, err := Push(ctx, a, c, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Pull(ctx, b, c, PullOptions{}); !errors.Is(err, turnback.ErrDiverged) {
		t.Fatalf("pull over a diverged session: %v", err)
	}
	bt, _, err := b.Turns(ctx)
	if err != nil || len(bt) != 7 {
		t.Fatalf("B's turns after a refused pull: %d %v", len(bt), err)
	}
	heads := func() int {
		l, err := c.List(ctx, "heads/")
		if err != nil {
			t.Fatal(err)
		}
		return len(l)
	}
	if n := heads(); n != 3 {
		t.Fatalf("%d heads", n)
	}
	if g, err := GC(ctx, c, GCOptions{Grace: time.Nanosecond, DryRun: true}); err != nil || g.HeadsDeleted != 2 || heads() != 3 {
		t.Fatalf("dry gc: %+v %v", g, err)
	}
	for range 2 {
		if g, err := GC(ctx, c, GCOptions{Grace: time.Nanosecond}); err != nil || g.PacksDeleted != 0 {
			t.Fatalf("gc: %+v %v", g, err)
		}
	}
	if n := heads(); n != 1 {
		t.Fatalf("%d heads after gc", n)
	}
	if v, err := Verify(ctx, c); err != nil || v.Heads != 1 {
		t.Fatalf("verify: %+v %v", v, err)
	}
	dirC := t.TempDir()
	if _, err := Clone(ctx, c, srv.Config("bucket-p", ""), dirC, turnback.Options{Store: filepath.Join(t.TempDir(), "s"), Session: "s"}); err != nil {
		t.Fatal(err)
	}
	treetest.Equal(t, "clone after gc", treetest.MustRead(t, dirC), treetest.MustRead(t, a.WorkTree()))
}

// TestRemotePushAvoidsPendingPacks: packs on a gc pending list (here:
// the only head was removed, so nothing names them) are neither reused
// nor rewritten under the same name by a later push, since a later gc
// run may delete them before that push's head is seen; the next gc
// deletes exactly them and the remote verifies and clones.
func TestRemotePushAvoidsPendingPacks(t *testing.T) {
	srv := s3test.Start(t)
	ctx := t.Context()
	a, states, _ := rtSession(t, "s")
	c := srv.Client(t, "bucket-g", "x")
	first, err := Push(ctx, a, c, PushOptions{})
	if err != nil {
		t.Fatal(err)
	}
	heads, err := c.List(ctx, "heads/")
	if err != nil || len(heads) != 1 {
		t.Fatalf("%v %v", heads, err)
	}
	if err := c.Remove(ctx, c.Prefix+heads[0].Key); err != nil {
		t.Fatal(err)
	}
	g, err := GC(ctx, c, GCOptions{Grace: time.Hour})
	if err != nil || g.PacksPending != first.Packs || g.PacksDeleted != 0 {
		t.Fatalf("gc: %+v %v", g, err)
	}
	pending, err := readPending(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Push(ctx, a, c, PushOptions{})
	if err != nil || again.ObjectsDeduplicated != 0 || again.Packs != first.Packs {
		t.Fatalf("push after gc: %+v %v", again, err)
	}
	heads, _ = c.List(ctx, "heads/")
	data, err := c.Get(ctx, c.Prefix+heads[0].Key, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	head, err := s3.DecodeHead(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range head.Packs {
		id, _ := cas.ParseHash(p)
		if _, ok := pending[id]; ok {
			t.Fatalf("the new head names pending pack %s", p)
		}
	}
	g, err = GC(ctx, c, GCOptions{Grace: time.Nanosecond})
	if err != nil || g.PacksDeleted != first.Packs {
		t.Fatalf("gc: %+v %v", g, err)
	}
	if _, err := Verify(ctx, c); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Clone(ctx, c, srv.Config("bucket-g", "x"), dir, turnback.Options{Store: filepath.Join(t.TempDir(), "s"), Session: "s"}); err != nil {
		t.Fatal(err)
	}
	treetest.Equal(t, "clone", treetest.MustRead(t, dir), states[4])
}
