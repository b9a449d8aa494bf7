package cas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestMemoryBackend(t *testing.T) {
	testBackend(t, func(t *testing.T) Backend { return NewMemory() })
}

func TestBadgerBackend(t *testing.T) {
	testBackend(t, func(t *testing.T) Backend { return openTestBadger(t, t.TempDir()) })
}

// openTestBadger opens a Badger backend in dir without waiting for the
// lock. The caller closes it.
func openTestBadger(t testing.TB, dir string) *Badger {
	t.Helper()
	b, err := OpenBadger(context.Background(), dir, BadgerOptions{Holder: t.Name()})
	if err != nil {
		t.Fatalf("OpenBadger: %v", err)
	}
	return b
}

// testBackend is the conformance suite every Backend implementation
// passes. open returns a fresh, empty backend; testBackend closes it.
func testBackend(t *testing.T, open func(t *testing.T) Backend) {
	ctx := context.Background()
	// fresh opens a backend that is closed when the subtest ends.
	fresh := func(t *testing.T) Backend {
		t.Helper()
		b := open(t)
		t.Cleanup(func() {
			if err := b.Close(); err != nil && !errors.Is(err, ErrClosed) {
				t.Errorf("Close: %v", err)
			}
		})
		return b
	}
	mustSet := func(t *testing.T, b Backend, kv ...string) {
		t.Helper()
		var es []Entry
		for i := 0; i < len(kv); i += 2 {
			es = append(es, Entry{Key: []byte(kv[i]), Value: []byte(kv[i+1])})
		}
		if err := b.Set(ctx, es...); err != nil {
			t.Fatalf("Set: %v", err)
		}
	}
	wantValue := func(t *testing.T, b Backend, key, want string) {
		t.Helper()
		got, err := b.Get(ctx, []byte(key))
		if err != nil {
			t.Fatalf("Get(%q): %v", key, err)
		}
		if string(got) != want {
			t.Fatalf("Get(%q) = %q, want %q", key, got, want)
		}
	}
	wantMissing := func(t *testing.T, b Backend, key string) {
		t.Helper()
		if v, err := b.Get(ctx, []byte(key)); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get(%q) = %q, %v; want ErrNotFound", key, v, err)
		}
		if ok, err := b.Has(ctx, []byte(key)); ok || err != nil {
			t.Fatalf("Has(%q) = %v, %v; want false, nil", key, ok, err)
		}
	}

	t.Run("GetMissing", func(t *testing.T) {
		b := fresh(t)
		wantMissing(t, b, "nope")
		mustSet(t, b, "a", "1")
		wantMissing(t, b, "b")
		wantMissing(t, b, "a\x00") // a longer key with the same start
	})

	t.Run("SetGetHas", func(t *testing.T) {
		b := fresh(t)
		mustSet(t, b, "a", "1", "b", "2", "c", "")
		wantValue(t, b, "a", "1")
		wantValue(t, b, "b", "2")
		wantValue(t, b, "c", "") // an empty value is a present key
		for _, k := range []string{"a", "b", "c"} {
			if ok, err := b.Has(ctx, []byte(k)); !ok || err != nil {
				t.Fatalf("Has(%q) = %v, %v; want true, nil", k, ok, err)
			}
		}
		mustSet(t, b, "a", "one")
		wantValue(t, b, "a", "one")
		// A value of chunk size, the largest the cas package writes.
		big := randBytes(1, SmallFileMax+1)
		if err := b.Set(ctx, Entry{Key: []byte("big"), Value: big}); err != nil {
			t.Fatalf("Set big: %v", err)
		}
		got, err := b.Get(ctx, []byte("big"))
		if err != nil || !bytes.Equal(got, big) {
			t.Fatalf("Get big: %d bytes, %v", len(got), err)
		}
		if err := b.Set(ctx); err != nil {
			t.Fatalf("Set of nothing: %v", err)
		}
	})

	t.Run("ValuesAreCopies", func(t *testing.T) {
		b := fresh(t)
		in := []byte("value")
		if err := b.Set(ctx, Entry{Key: []byte("k"), Value: in}); err != nil {
			t.Fatal(err)
		}
		in[0] = 'X'
		wantValue(t, b, "k", "value")
		got, err := b.Get(ctx, []byte("k"))
		if err != nil {
			t.Fatal(err)
		}
		got[0] = 'Y'
		wantValue(t, b, "k", "value")

		// The same for a batch, once flushed.
		bt := b.NewBatch()
		in2 := []byte("batched")
		if err := bt.Put([]byte("k2"), in2); err != nil {
			t.Fatal(err)
		}
		if err := bt.Flush(); err != nil {
			t.Fatal(err)
		}
		in2[0] = 'X'
		wantValue(t, b, "k2", "batched")

		// A copy taken inside a Scan callback stays valid after it.
		var kept [][]byte
		err = b.Scan(ctx, []byte("k"), false, func(key, value []byte) error {
			kept = append(kept, bytes.Clone(value))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(kept) != 2 || string(kept[0]) != "value" || string(kept[1]) != "batched" {
			t.Fatalf("Scan values = %q", kept)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		b := fresh(t)
		mustSet(t, b, "a", "1", "b", "2", "c", "3")
		if err := b.Delete(ctx, []byte("a"), []byte("absent"), []byte("c")); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		wantMissing(t, b, "a")
		wantMissing(t, b, "c")
		wantValue(t, b, "b", "2")
		if err := b.Delete(ctx, []byte("a")); err != nil {
			t.Fatalf("Delete of a deleted key: %v", err)
		}
		if err := b.Delete(ctx); err != nil {
			t.Fatalf("Delete of nothing: %v", err)
		}
		mustSet(t, b, "a", "again")
		wantValue(t, b, "a", "again")
	})

	t.Run("Scan", func(t *testing.T) {
		b := fresh(t)
		// Inserted out of order, with bytes above 0x7f to catch signed
		// comparisons, and neighbours of the prefix on both sides.
		keys := []string{"p/b", "p/\xff", "p/a/1", "p/", "p/a", "o/z", "p", "q/a", "p/\x00", "p0"}
		for i, k := range keys {
			mustSet(t, b, k, fmt.Sprint("v", i))
		}
		value := func(k string) string { return fmt.Sprint("v", slices.Index(keys, k)) }

		scan := func(prefix string, keysOnly bool) (got []string) {
			t.Helper()
			err := b.Scan(ctx, []byte(prefix), keysOnly, func(key, val []byte) error {
				if keysOnly {
					if val != nil {
						t.Errorf("keysOnly: value of %q = %q, want nil", key, val)
					}
				} else if string(val) != value(string(key)) {
					t.Errorf("value of %q = %q, want %q", key, val, value(string(key)))
				}
				got = append(got, string(key)) // string() copies
				return nil
			})
			if err != nil {
				t.Fatalf("Scan(%q): %v", prefix, err)
			}
			return got
		}
		want := []string{"p/", "p/\x00", "p/a", "p/a/1", "p/b", "p/\xff"}
		for _, keysOnly := range []bool{false, true} {
			if got := scan("p/", keysOnly); !slices.Equal(got, want) {
				t.Errorf("Scan(p/, keysOnly=%v) = %q, want %q", keysOnly, got, want)
			}
		}
		all := slices.Clone(keys)
		slices.Sort(all)
		if got := scan("", false); !slices.Equal(got, all) {
			t.Errorf("Scan(\"\") = %q, want %q", got, all)
		}
		if got := scan("zz", false); len(got) != 0 {
			t.Errorf("Scan(zz) = %q, want nothing", got)
		}
		if got := scan("p/a/1", true); !slices.Equal(got, []string{"p/a/1"}) {
			t.Errorf("Scan(p/a/1) = %q", got)
		}

		// An error from fn stops the scan and comes back as-is.
		stop := errors.New("stop here")
		var n int
		err := b.Scan(ctx, []byte("p/"), false, func(key, val []byte) error {
			n++
			if n == 3 {
				return fmt.Errorf("wrapped: %w", stop)
			}
			return nil
		})
		if !errors.Is(err, stop) {
			t.Errorf("Scan with failing fn = %v, want %v", err, stop)
		}
		if n != 3 {
			t.Errorf("fn called %d times after it failed on the 3rd", n)
		}
	})

	t.Run("ScanCallbackMayWrite", func(t *testing.T) {
		// gc sweeps by deleting while it scans.
		b := fresh(t)
		for i := range 50 {
			mustSet(t, b, fmt.Sprintf("d/%03d", i), "x")
		}
		done := make(chan error, 1)
		go func() {
			done <- b.Scan(ctx, []byte("d/"), true, func(key, _ []byte) error {
				return b.Delete(ctx, bytes.Clone(key))
			})
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Scan deleting: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("Scan with a deleting callback deadlocked")
		}
		var left int
		if err := b.Scan(ctx, []byte("d/"), true, func(_, _ []byte) error { left++; return nil }); err != nil {
			t.Fatal(err)
		}
		if left != 0 {
			t.Fatalf("%d keys left after deleting all", left)
		}
	})

	t.Run("Batch", func(t *testing.T) {
		b := fresh(t)
		bt := b.NewBatch()
		const workers, per = 8, 250
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := range workers {
			wg.Go(func() {
				for i := range per {
					k := fmt.Appendf(nil, "batch/%d/%04d", w, i)
					v := fmt.Appendf(nil, "value %d %d %s", w, i, bytes.Repeat([]byte{'x'}, i))
					if err := bt.Put(k, v); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("Put: %v", err)
		}
		if err := bt.Flush(); err != nil {
			t.Fatalf("Flush: %v", err)
		}
		bt.Cancel() // after Flush: harmless, as in `defer Cancel()`
		var n int
		err := b.Scan(ctx, []byte("batch/"), false, func(key, val []byte) error {
			var w, i int
			if _, err := fmt.Sscanf(string(key), "batch/%d/%d", &w, &i); err != nil {
				return err
			}
			want := fmt.Sprintf("value %d %d %s", w, i, bytes.Repeat([]byte{'x'}, i))
			if string(val) != want {
				return fmt.Errorf("%s = %q, want %q", key, val, want)
			}
			n++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n != workers*per {
			t.Fatalf("found %d entries after Flush, want %d", n, workers*per)
		}
		if err := b.Sync(); err != nil {
			t.Fatalf("Sync: %v", err)
		}

		// Flush ends a batch.
		if err := bt.Put([]byte("late"), []byte("x")); err == nil {
			t.Error("Put after Flush succeeded")
		}
		// So does Cancel; an empty batch flushes fine.
		bt2 := b.NewBatch()
		bt2.Cancel()
		if err := bt2.Put([]byte("late"), []byte("x")); err == nil {
			t.Error("Put after Cancel succeeded")
		}
		if err := b.NewBatch().Flush(); err != nil {
			t.Errorf("Flush of an empty batch: %v", err)
		}
	})

	t.Run("ContextCancelled", func(t *testing.T) {
		b := fresh(t)
		mustSet(t, b, "k", "v")
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		check := func(op string, err error) {
			t.Helper()
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s with a cancelled context: %v, want context.Canceled", op, err)
			}
		}
		_, err := b.Get(cctx, []byte("k"))
		check("Get", err)
		_, err = b.Has(cctx, []byte("k"))
		check("Has", err)
		check("Set", b.Set(cctx, Entry{Key: []byte("k2"), Value: []byte("v")}))
		check("Delete", b.Delete(cctx, []byte("k")))
		called := false
		fn := func(_, _ []byte) error { called = true; return nil }
		check("Scan", b.Scan(cctx, nil, false, fn))
		check("Scan of an empty range", b.Scan(cctx, []byte("none/"), true, fn))
		if called {
			t.Error("Scan called fn with a cancelled context")
		}
		// Nothing was changed.
		wantValue(t, b, "k", "v")
		wantMissing(t, b, "k2")
	})

	t.Run("UseAfterClose", func(t *testing.T) {
		b := open(t)
		mustSet(t, b, "k", "v")
		early := b.NewBatch()
		if err := b.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		check := func(op string, err error) {
			t.Helper()
			if !errors.Is(err, ErrClosed) {
				t.Errorf("%s after Close: %v, want ErrClosed", op, err)
			}
		}
		_, err := b.Get(ctx, []byte("k"))
		check("Get", err)
		_, err = b.Has(ctx, []byte("k"))
		check("Has", err)
		check("Set", b.Set(ctx, Entry{Key: []byte("k"), Value: []byte("v")}))
		check("Delete", b.Delete(ctx, []byte("k")))
		check("Scan", b.Scan(ctx, nil, false, func(_, _ []byte) error { return nil }))
		check("Sync", b.Sync())

		// Batches must fail, not block, whether made before or after Close.
		done := make(chan struct{})
		go func() {
			defer close(done)
			for _, bt := range []Batch{early, b.NewBatch()} {
				check("Batch.Put", bt.Put([]byte("k"), []byte("v")))
				if err := bt.Flush(); err == nil {
					t.Error("Batch.Flush after Close succeeded")
				}
				bt.Cancel()
			}
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("batch after Close blocked")
		}
		if err := b.Close(); err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("second Close: %v", err)
		}
	})
}
