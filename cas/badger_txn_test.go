package cas

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// TestUpdatePastTxnLimit: one Update or Set of records each under
// valueThreshold but together past what Badger takes in one transaction
// (15% of the 8 MiB memtable) commits, and reads back byte for byte,
// also after a reopen; so does a batch of many small records with a few
// large ones among them. Before, Badger refused it: "Txn is too big".
func TestUpdatePastTxnLimit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := openTestBadger(t, dir)
	val := func(i, n int) []byte { return bytes.Repeat([]byte{byte('a' + i%26)}, n) }
	var big, mixed []Entry
	for i := range 4 {
		big = append(big, Entry{Key: fmt.Appendf(nil, "m/big/%d", i), Value: val(i, 700<<10)})
	}
	for i := range 2000 {
		mixed = append(mixed, Entry{Key: fmt.Appendf(nil, "m/small/%04d", i), Value: val(i, 300)})
	}
	mixed = append(mixed, Entry{Key: []byte("m/mid/0"), Value: val(1, 600<<10)}, Entry{Key: []byte("m/mid/1"), Value: val(2, 300<<10)})
	if err := b.Update(ctx, big, nil); err != nil {
		t.Fatalf("update of 4 records of 700 KiB: %v", err)
	}
	if err := b.Set(ctx, mixed...); err != nil {
		t.Fatalf("set of 2,000 small records and two of 600 and 300 KiB: %v", err)
	}
	check := func(b *Badger, when string) {
		t.Helper()
		for _, e := range append(append([]Entry(nil), big...), mixed...) {
			got, err := b.Get(ctx, e.Key)
			if err != nil || !bytes.Equal(got, e.Value) {
				t.Fatalf("%s: %s reads back %d bytes, %v; want %d", when, e.Key, len(got), err, len(e.Value))
			}
		}
	}
	check(b, "after the update")
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b = openTestBadger(t, dir)
	defer b.Close()
	check(b, "reopened")
}
