package cas

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestReclaimKeepsPackWithDamagedValue: a pack mostly dead, whose one
// live value is damaged on the disk, is kept as it is by Reclaim: the
// damaged value cannot be copied as it was. Before, Reclaim failed on
// it, and so did every gc from then on. The other packs are reclaimed,
// the damaged value still reads as damaged, the live ones read back.
func TestReclaimKeepsPackWithDamagedValue(t *testing.T) {
	setPackTarget(t, 1<<20)
	ctx := context.Background()
	dir := t.TempDir()
	b := openTestBadger(t, dir)
	defer b.Close()

	vals := map[int][]byte{}
	batch := b.NewBatch()
	for i := range 30 { // in order: 10 per 1 MiB pack
		vals[i] = packValue(i, 100<<10)
		if err := batch.Put(packKey(i), vals[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := batch.Flush(); err != nil {
		t.Fatal(err)
	}
	packs := packFiles(t, dir)
	first, second := packs[0], packs[1]
	// Value 3 is in the first pack: flip one of its bytes there.
	path := filepath.Join(dir, packName(first.id))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, vals[3][:64])
	if at < 0 {
		t.Fatal("value 3 not in the first pack")
	}
	data[at+10] ^= 0xff
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	// Every other value of the first two packs is dead: the first pack
	// is left with only value 3 live, the second with one or two.
	var dead [][]byte
	for i := range 20 {
		if i != 3 {
			dead = append(dead, packKey(i))
			delete(vals, i)
		}
	}
	if err := b.Delete(ctx, dead...); err != nil {
		t.Fatal(err)
	}
	if err := b.Reclaim(ctx); err != nil {
		t.Fatalf("Reclaim with a damaged live value in a mostly dead pack: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the pack holding the damaged value is gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, packName(second.id))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the mostly dead second pack was not reclaimed: %v", err)
	}
	if _, err := b.Get(ctx, packKey(3)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("the damaged value after Reclaim: %v, want ErrCorrupt", err)
	}
	delete(vals, 3)
	for i, want := range vals {
		if got, err := b.Get(ctx, packKey(i)); err != nil || !bytes.Equal(got, want) {
			t.Errorf("value %d after Reclaim: %d bytes, %v", i, len(got), err)
		}
	}
	if err := b.Reclaim(ctx); err != nil {
		t.Fatalf("a second Reclaim: %v", err)
	}
}
