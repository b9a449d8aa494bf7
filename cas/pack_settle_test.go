package cas

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

// TestPackSettleOffLock: a full pack is synced without the pack lock, so
// other values go into the next pack meanwhile, and its pointers are
// committed only once that sync is done.
func TestPackSettleOffLock(t *testing.T) {
	setPackTarget(t, 64<<10)
	entered, release := make(chan struct{}), make(chan struct{})
	old := syncFull
	syncFull = func(f *os.File) error {
		entered <- struct{}{}
		<-release
		return old(f)
	}
	t.Cleanup(func() { syncFull = old })
	b := openTestBadger(t, t.TempDir())
	defer b.Close()
	first, second := b.NewBatch(), b.NewBatch()
	defer first.Cancel()
	defer second.Cancel()
	done := make(chan error, 1)
	go func() { done <- first.Put(packKey(1), packValue(1, 70<<10)) }() // fills pack 1
	<-entered
	if ok, err := b.packs.durable(1); ok || err != nil {
		t.Fatalf("pack 1 durable while its sync runs: %v, %v", ok, err)
	}
	if below := b.packs.sealedBelow(); below > 1 {
		t.Fatalf("sealedBelow %d while pack 1 syncs", below)
	}
	// Another writer is not held up by the sync.
	putDone := make(chan error, 1)
	go func() { putDone <- second.Put(packKey(2), packValue(2, 5000)) }()
	select {
	case err := <-putDone:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a Put waited for another pack's sync")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, batch := range []Batch{first, second} {
		if err := batch.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	checkValues(t, b, map[int][]byte{1: packValue(1, 70<<10), 2: packValue(2, 5000)})
	if ok, err := b.packs.durable(1); !ok || err != nil {
		t.Fatalf("pack 1 after its sync: durable %v, %v", ok, err)
	}
}

// TestPackSettleFailure: when syncing a full pack fails, the pack is
// broken: the batch with values in it fails and commits none of them,
// and later values go to a new pack.
func TestPackSettleFailure(t *testing.T) {
	setPackTarget(t, 64<<10)
	old := syncFull
	syncFull = func(*os.File) error { return errors.New("injected sync failure") }
	t.Cleanup(func() { syncFull = old })
	ctx := context.Background()
	dir := t.TempDir()
	b := openTestBadger(t, dir)
	defer b.Close()
	batch := b.NewBatch()
	if err := batch.Put(packKey(1), packValue(1, 5000)); err != nil {
		t.Fatal(err)
	}
	err := batch.Put(packKey(2), packValue(2, 70<<10))
	if err == nil {
		err = batch.Flush()
	} else {
		batch.Cancel()
	}
	if err == nil {
		t.Fatal("a batch whose pack could not be synced succeeded")
	}
	for _, i := range []int{1, 2} {
		if _, err := b.Get(ctx, packKey(i)); !errors.Is(err, ErrNotFound) {
			t.Errorf("value %d of the failed batch: %v, want ErrNotFound", i, err)
		}
	}
	syncFull = old
	vals := map[int][]byte{3: packValue(3, 5000)}
	putBatch(t, b, vals)
	checkValues(t, b, vals)
	if got := packFiles(t, dir); len(got) != 1 || got[0].id != 2 {
		t.Errorf("packs %v, want only a new one (the broken one, never synced, is removed)", got)
	}
}
