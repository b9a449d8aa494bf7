package walker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/turnback/turnback/cas"
)

// scribbleBackend hands Scan's function its key and value in one buffer
// it reuses, and scribbles over it after each call: a record kept past
// the call without a copy reads garbage.
type scribbleBackend struct{ cas.Backend }

func (b scribbleBackend) Scan(ctx context.Context, prefix []byte, keysOnly bool, fn func(k, v []byte) error) error {
	var buf []byte
	return b.Backend.Scan(ctx, prefix, keysOnly, func(k, v []byte) error {
		buf = append(append(buf[:0], k...), v...)
		err := fn(buf[:len(k):len(k)], buf[len(k):])
		for i := range buf {
			buf[i] = 0xa5
		}
		return err
	})
}

// TestPreloadRecordsCopied: every record the preload hands out decodes
// to what was written, though the scan's buffer is overwritten after each
// record and the store's record changes after the scan. The records span
// several chunks, some larger than keep copies into one; each is handed
// out once.
func TestPreloadRecordsCopied(t *testing.T) {
	ctx := context.Background()
	mem := cas.NewMemory()
	rng := rand.New(rand.NewPCG(1, 2))
	want := map[string]*dirRecord{}
	var sets []cas.Entry
	for d := range 400 {
		dir := fmt.Sprintf("d%03d/sub%d", d, d%7)
		n := rng.IntN(40)
		if d%50 == 0 {
			n = 400 // over preloadChunk/4 encoded
		}
		rec := &dirRecord{tree: cas.Sum([]byte(dir))}
		for i := range n {
			rec.entries = append(rec.entries, cacheEntry{
				name:   fmt.Sprintf("file-%04d-%x.go", i, rng.Uint32()),
				st:     fileStat{size: rng.Int64N(1 << 20), mtime: rng.Int64(), ctime: rng.Int64(), ino: rng.Uint64(), mode: 0o644},
				hash:   cas.Sum(fmt.Appendf(nil, "%s %d", dir, i)),
				stored: i%3 != 0,
			})
		}
		rec.subs = []subEntry{{name: "sub", hash: cas.Sum([]byte(dir + "/sub")), files: int64(n)}}
		want[dir] = rec
		sets = append(sets, cas.Entry{Key: cacheKey(dir), Value: encodeRecord(rec)})
	}
	if err := mem.Set(ctx, sets...); err != nil {
		t.Fatal(err)
	}
	c := NewStatCache(scribbleBackend{mem})
	r := c.preload(ctx)
	<-r.finished
	if !r.complete || len(r.recs) != len(want) {
		t.Fatalf("scan: complete %v, %d records; want true, %d", r.complete, len(r.recs), len(want))
	}
	// Each record changes in the store after the scan: the preload hands
	// out the one it read.
	for i := range sets {
		sets[i].Value = encodeRecord(&dirRecord{})
	}
	if err := mem.Set(ctx, sets...); err != nil {
		t.Fatal(err)
	}
	dirs := make([]string, 0, len(want))
	for dir := range want {
		dirs = append(dirs, dir)
	}
	rng.Shuffle(len(dirs), func(i, j int) { dirs[i], dirs[j] = dirs[j], dirs[i] })
	for _, dir := range dirs {
		var got dirRecord
		if !r.load(ctx, dir, &got, nil) {
			t.Fatalf("%s: no record", dir)
		}
		w := want[dir]
		if !reflect.DeepEqual(got.entries, w.entries) && (len(got.entries) != 0 || len(w.entries) != 0) ||
			got.tree != w.tree || !reflect.DeepEqual(got.subs, w.subs) {
			t.Fatalf("%s: record decodes to %d entries, tree %s; want %d, %s", dir, len(got.entries), got.tree.Short(), len(w.entries), w.tree.Short())
		}
		if r.load(ctx, dir, &got, nil) {
			t.Fatalf("%s: handed out twice", dir)
		}
	}
	if r.load(ctx, "d000", &dirRecord{}, nil) {
		t.Error("a directory without a record has one")
	}
	r.close()
}
