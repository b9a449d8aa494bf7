//go:build unix

package cas

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOverlayHostileLog: a log turnback cannot have written (larger than
// overlayReadMax, a symlink to /dev/zero, a fifo) is damage named whole,
// and none of it is read: a read-only open shows the database and says
// so, a deferred or write-mode open refuses, and an open with Salvage
// moves it aside and leaves a store every open takes. Before, the log
// was read whole into memory, and a fifo hung every open.
func TestOverlayHostileLog(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, path string)
		why  string
	}{
		{"huge", func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(append(append([]byte{}, overlayMagic...), make([]byte, overlayIDLen)...)); err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(4 * overlayReadMax); err != nil { // sparse: nothing on disk
				t.Fatal(err)
			}
			f.Close()
		}, "larger than any log"},
		{"dev-zero", func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"fifo", func(t *testing.T, path string) {
			if runtime.GOOS == "windows" {
				t.Skip("no fifos")
			}
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			dir := emptyStore(t)
			s := mustOpen(t, dir, BadgerOptions{})
			if err := s.Set(ctx, Entry{Key: []byte("k"), Value: []byte("v")}); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, overlayName)
			c.make(t, path)

			var d *LogDamageError
			ro, err, grew := openWithin(t, dir, BadgerOptions{ReadOnly: true})
			if err != nil {
				t.Fatalf("read-only open: %v", err)
			}
			if grew > overlayReadMax/2 {
				t.Errorf("a read-only open allocated %d bytes", grew)
			}
			if err := ro.LogDamage(); !errors.As(err, &d) || !strings.Contains(err.Error(), c.why) || d.Path != path {
				t.Errorf("LogDamage: %v; want the whole log named (%s)", err, c.why)
			}
			mustGet(t, ro, "k", "v")
			ro.Close()
			for _, o := range []BadgerOptions{{Deferred: true}, {}} {
				if b, err, _ := openWithin(t, dir, o); !errors.As(err, &d) {
					if b != nil {
						b.Close()
					}
					t.Errorf("open %+v: %v; want the *LogDamageError", o, err)
				}
			}
			salv, err, _ := openWithin(t, dir, BadgerOptions{Deferred: true, Salvage: true})
			if err != nil {
				t.Fatalf("open with Salvage: %v", err)
			}
			if sv := salv.Salvaged(); sv == nil || sv.Frames != 0 || filepath.Dir(sv.MovedTo) != dir {
				t.Errorf("Salvaged: %+v", sv)
			}
			if err := salv.Set(ctx, Entry{Key: []byte("after"), Value: []byte("salvage")}); err != nil {
				t.Fatal(err)
			}
			if err := salv.Close(); err != nil {
				t.Fatal(err)
			}
			for _, o := range []BadgerOptions{{ReadOnly: true}, {Deferred: true}, {}} {
				b := mustOpen(t, dir, o)
				if b.LogDamage() != nil || b.Salvaged() != nil {
					t.Errorf("open %+v after the salvage: %v, %+v", o, b.LogDamage(), b.Salvaged())
				}
				mustGet(t, b, "k", "v")
				mustGet(t, b, "after", "salvage")
				b.Close()
			}
		})
	}
}

// openWithin opens the store at dir, failing the test if that takes a
// minute (a log read that hangs), and says how much the open allocated.
func openWithin(t *testing.T, dir string, o BadgerOptions) (*Badger, error, uint64) {
	t.Helper()
	type opened struct {
		b    *Badger
		err  error
		grew uint64
	}
	ch := make(chan opened, 1)
	go func() {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b, err := OpenBadger(t.Context(), dir, o)
		runtime.ReadMemStats(&after)
		ch <- opened{b, err, after.TotalAlloc - before.TotalAlloc}
	}()
	select {
	case r := <-ch:
		return r.b, r.err, r.grew
	case <-time.After(time.Minute):
		t.Fatalf("open %+v of %s hangs on its log", o, dir)
		return nil, nil, 0
	}
}
