package cas

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestExpClosed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b, err := OpenBadger(ctx, dir, BadgerOptions{Holder: "x"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenBadger(ctx, dir, BadgerOptions{Holder: "y"})
	t.Logf("second open: %v", err)
	s, _ := NewStore(b)
	w := s.NewWriter()
	data := make([]byte, 700<<10)
	for i := 0; i < 30; i++ {
		data[0], data[1] = byte(i), byte(i>>8)
		for j := 2; j < len(data); j += 997 {
			data[j] = byte(i*j + j>>3)
		}
		if _, err := w.PutBlob(ctx, append([]byte(nil), data...)); err != nil {
			t.Fatal(err)
		}
	}
	t.Log(w.Flush(), w.Stats())
	b.Close()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		fi, _ := os.Stat(filepath.Join(dir, e.Name()))
		t.Logf("%s %d", e.Name(), fi.Size())
	}
	t.Logf("sync after close: %v", func() (err error) { defer func() { if r := recover(); r != nil { t.Logf("panic %v", r) } }(); return b.Sync() }())
	func() {
		defer func() { if r := recover(); r != nil { t.Logf("batch panic %v", r) } }()
		bt := b.NewBatch()
		t.Logf("put after close: %v", bt.Put([]byte("k"), []byte("v")))
		t.Logf("flush after close: %v", bt.Flush())
	}()
	t.Logf("close again: %v", b.Close())
}
