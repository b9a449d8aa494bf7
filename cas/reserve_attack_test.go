package cas

// Attacks on Reserve (reserve.go) at the log's bounds: its age, its
// frame count, its size, a commit larger than the reservation, and
// what Reserve promises for the writes made before it.

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// raFullDisk makes every space check of b fail until the returned
// function runs.
func raFullDisk(t *testing.T, b *Badger, dir string) (restore func()) {
	t.Helper()
	free, ok := freeSpace(dir)
	if !ok {
		t.Skip("free space unknown here")
	}
	oldBase, oldMax := b.space.reserve, reserveMax
	b.space.reserve, reserveMax = free+1<<30, free+1<<31
	b.space.mu.Lock()
	b.space.known = false
	b.space.mu.Unlock()
	return func() { b.space.reserve, reserveMax = oldBase, oldMax }
}

// raLogSize is the size of dir's overlay log (0: none).
func raLogSize(t *testing.T, dir string) int64 {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, overlayName))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestReserveAttackKeepsEarlierWrites: Reserve promises the commit of
// the writes made before it. When the commit turns out larger than the
// reservation (more was written after it) and the disk is full by then,
// that commit fails; the writes made before Reserve (in a restore: the
// trees the journal names) must still be there, in this process and
// after a new open.
func TestReserveAttackKeepsEarlierWrites(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux allocates ahead")
	}
	dir, b := deferredWithFrames(t, 2)
	ctx := t.Context()
	if err := b.Set(ctx, Entry{Key: []byte("m/before-reserve"), Value: []byte("the result's tree")}); err != nil {
		t.Fatal(err)
	}
	if err := b.Reserve(64); err != nil {
		t.Fatal(err)
	}
	if !b.commitsLater() {
		skipIfNoPrealloc(t, dir)
		t.Fatal("Reserve opened the database for writing")
	}
	// More than reserved: 40 entries of 1 KB.
	for i := range 40 {
		if err := b.Set(ctx, Entry{Key: fmt.Appendf(nil, "m/after%02d", i), Value: make([]byte, 1000)}); err != nil {
			t.Fatal(err)
		}
	}
	undo := raFullDisk(t, b, dir)
	err := b.Sync()
	undo()
	if err == nil {
		t.Log("the larger commit went through")
	}
	mustGet(t, b, "m/before-reserve", "the result's tree")
	if err := b.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	r := mustOpen(t, dir, BadgerOptions{ReadOnly: true})
	defer r.Close()
	mustGet(t, r, "m/before-reserve", "the result's tree")
	mustGet(t, r, "m/before1", "v")
}

// TestReserveAttackAgedLog: a log older than overlayMaxAge, or holding
// overlayMaxFrames frames, is due for a fold: Reserve opens the
// database for writing at once (folding the log) and every record,
// old and new, is readable after the commit and after a new open.
func TestReserveAttackAgedLog(t *testing.T) {
	for _, tc := range []struct {
		name   string
		frames int
		age    time.Duration
	}{
		{"old", 2, overlayMaxAge + time.Minute},
		{"many frames", overlayMaxFrames, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, b := deferredWithFrames(t, tc.frames)
			defer func(c func() time.Time) { overlayClock = c }(overlayClock)
			now := time.Now().Add(tc.age)
			overlayClock = func() time.Time { return now }
			if err := b.Reserve(100); err != nil {
				t.Fatal(err)
			}
			if b.commitsLater() {
				t.Fatal("Reserve left a due log deferred")
			}
			if n := raLogSize(t, dir); n != 0 {
				t.Errorf("the log was not folded: %d bytes", n)
			}
			if err := b.Set(t.Context(), Entry{Key: []byte("m/commit"), Value: []byte("c")}); err != nil {
				t.Fatal(err)
			}
			if err := b.Sync(); err != nil {
				t.Fatal(err)
			}
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			r := mustOpen(t, dir, BadgerOptions{ReadOnly: true})
			defer r.Close()
			mustGet(t, r, "m/commit", "c")
			for i := range tc.frames {
				mustGet(t, r, fmt.Sprintf("m/before%d", i), "v")
			}
		})
	}
}

// TestReserveAttackDueBetween: a log not yet due when Reserve ran, but
// due when the commit comes (its age passed overlayMaxAge meanwhile,
// or it reached overlayMaxFrames - 1 frames before), takes the commit
// in its reserved room on a full disk; the next commit, after Release,
// folds it.
func TestReserveAttackDueBetween(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux allocates ahead")
	}
	for _, tc := range []struct {
		name   string
		frames int
		later  time.Duration
	}{
		{"aged meanwhile", 2, overlayMaxAge + time.Minute},
		{"last frame", overlayMaxFrames - 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, b := deferredWithFrames(t, tc.frames)
			defer func(c func() time.Time) { overlayClock = c }(overlayClock)
			if err := b.Reserve(200); err != nil {
				t.Fatal(err)
			}
			if !b.commitsLater() {
				skipIfNoPrealloc(t, dir)
				t.Fatal("Reserve opened the database for writing")
			}
			now := time.Now().Add(tc.later)
			overlayClock = func() time.Time { return now }
			if err := b.Set(t.Context(), Entry{Key: []byte("m/commit"), Value: []byte("c")}); err != nil {
				t.Fatal(err)
			}
			undo := raFullDisk(t, b, dir)
			err := b.Sync()
			undo()
			if err != nil {
				t.Fatalf("the reserved commit on a full disk: %v", err)
			}
			if !b.commitsLater() {
				t.Error("the reserved commit opened the database for writing")
			}
			b.Release() // as the restore does once it committed
			if err := b.Set(t.Context(), Entry{Key: []byte("m/next"), Value: []byte("n")}); err != nil {
				t.Fatal(err)
			}
			if err := b.Sync(); err != nil {
				t.Fatal(err)
			}
			if b.commitsLater() {
				t.Error("a due log was not folded by the next commit")
			}
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			r := mustOpen(t, dir, BadgerOptions{ReadOnly: true})
			defer r.Close()
			mustGet(t, r, "m/commit", "c")
			mustGet(t, r, "m/next", "n")
			mustGet(t, r, "m/before0", "v")
		})
	}
}

// TestReserveAttackNearMax: a log whose size plus the reservation would
// pass overlayMax opens the database for writing; one just within it
// takes the reservation, and the commit keeps the log within overlayMax.
func TestReserveAttackNearMax(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux allocates ahead")
	}
	dir, b := deferredWithFrames(t, 1)
	size := raLogSize(t, dir)
	const n = 300
	need := frameBound(n)
	defer func(m int64) { overlayMax = m }(overlayMax)
	overlayMax = size + need // exactly enough
	if err := b.Reserve(n); err != nil {
		t.Fatal(err)
	}
	if !b.commitsLater() {
		skipIfNoPrealloc(t, dir)
		t.Fatal("a reservation that fits exactly opened the database for writing")
	}
	if err := b.Set(t.Context(), Entry{Key: []byte("m/commit-key-of-some-length"), Value: make([]byte, n-40)}); err != nil {
		t.Fatal(err)
	}
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := raLogSize(t, dir); b.commitsLater() && got > overlayMax {
		t.Errorf("the log is %d bytes, past overlayMax %d", got, overlayMax)
	}
	// One byte short: the next reservation upgrades.
	overlayMax = raLogSize(t, dir) + frameBound(n) - 1
	if err := b.Reserve(n); err != nil {
		t.Fatal(err)
	}
	if b.commitsLater() {
		t.Error("a reservation past overlayMax left the store deferred")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	r := mustOpen(t, dir, BadgerOptions{ReadOnly: true})
	defer r.Close()
	mustGet(t, r, "m/before0", "v")
}

// TestReserveAttackUnusedReservation: a reservation no commit used (the
// restore found a conflict) leaves a store that closes, reopens
// deferred, and reads and writes as before; a log the reservation
// created and nothing appended to is no damage.
func TestReserveAttackUnusedReservation(t *testing.T) {
	for _, frames := range []int{0, 2} {
		t.Run(fmt.Sprintf("%d frames", frames), func(t *testing.T) {
			dir, b := deferredWithFrames(t, frames)
			if err := b.Reserve(1000); err != nil {
				t.Fatal(err)
			}
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}
			for _, o := range []BadgerOptions{{ReadOnly: true}, {Deferred: true}, {}} {
				r := mustOpen(t, dir, o)
				if frames > 0 {
					mustGet(t, r, "m/before1", "v")
				}
				if !o.ReadOnly {
					if err := r.Set(t.Context(), Entry{Key: fmt.Appendf(nil, "m/after-%v", o.Deferred), Value: []byte("x")}); err != nil {
						t.Fatal(err)
					}
				}
				if err := r.Close(); err != nil {
					t.Fatalf("close %+v: %v", o, err)
				}
			}
			r := mustOpen(t, dir, BadgerOptions{ReadOnly: true})
			defer r.Close()
			mustGet(t, r, "m/after-true", "x")
			mustGet(t, r, "m/after-false", "x")
		})
	}
}
