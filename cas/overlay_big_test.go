package cas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Attacks on the log's limits (deferMax 512 KiB, overlayMax 1 MiB) with
// frames as large as they allow.

// tContext is the context of these tests' calls.
var tContext = context.Background()

// bigCommit commits key = val (one Update, one Sync) to the deferred d.
func bigCommit(d *Badger, key string, val []byte) error {
	if err := d.Update(tContext, []Entry{{Key: []byte(key), Value: val}}, nil); err != nil {
		return err
	}
	return d.Sync()
}

// logFrames returns the log's frame count and its size (0, 0: none).
func logFrames(t *testing.T, dir string) (frames int, size int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, overlayName))
	if errors.Is(err, os.ErrNotExist) {
		return 0, 0
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := parseOverlay(data, func([]overlayOp) { frames++ }); err != nil {
		t.Fatal(err)
	}
	return frames, len(data)
}

// TestOverlayBigFrameCutAnywhere: the second frame of a log of about
// 950 KB, cut anywhere (as a kill in its write leaves it), is a torn
// end: a read-only open sees the first frame's state and no damage; a
// deferred open cuts it and its next frame follows the first.
func TestOverlayBigFrameCutAnywhere(t *testing.T) {
	dir := emptyStore(t)
	a, b := randBytes(uint64(1), 450<<10), randBytes(uint64(2), 500<<10)
	d := mustOpen(t, dir, BadgerOptions{Deferred: true})
	if err := bigCommit(d, "big", a); err != nil {
		t.Fatal(err)
	}
	if err := bigCommit(d, "big", b); err != nil {
		t.Fatal(err)
	}
	d.Close()
	path := filepath.Join(dir, overlayName)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := logFrames(t, dir); n != 2 {
		t.Fatalf("%d frames in a log of %d bytes, want 2", n, len(full))
	}
	first := overlayHeader + frameHeader + int(uint32(full[overlayHeader])|uint32(full[overlayHeader+1])<<8|uint32(full[overlayHeader+2])<<16)
	cuts := []int{first + 1, first + frameHeader - 1, first + frameHeader, first + frameHeader + 1, len(full) - 1}
	for c := first + 4096; c < len(full); c += 37 << 10 {
		cuts = append(cuts, c)
	}
	for _, cut := range cuts {
		if err := os.WriteFile(path, full[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		ro := mustOpen(t, dir, BadgerOptions{ReadOnly: true})
		if err := ro.LogDamage(); err != nil {
			t.Errorf("cut at %d: %v; want a torn end, no damage", cut, err)
		}
		if got, err := ro.Get(tContext, []byte("big")); err != nil || !bytes.Equal(got, a) {
			t.Errorf("cut at %d: big is %d bytes, %v; want the first frame's %d", cut, len(got), err, len(a))
		}
		ro.Close()
		d := mustOpen(t, dir, BadgerOptions{Deferred: true})
		if err := bigCommit(d, "after", []byte("cut")); err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		d.Close()
		if now, _ := os.ReadFile(path); !bytes.Equal(now[:first], full[:first]) || len(now) <= first || len(now) > first+100 {
			t.Errorf("cut at %d: the log is %d bytes; want the first frame's %d and one small frame", cut, len(now), first)
		}
		ro = mustOpen(t, dir, BadgerOptions{ReadOnly: true})
		if err := ro.LogDamage(); err != nil {
			t.Errorf("cut at %d, then a commit: %v", cut, err)
		}
		mustGet(t, ro, "after", "cut")
		ro.Close()
	}
}

// TestOverlayBigFrameAppendFails: an append of a large frame that fails
// (EIO or ENOSPC, before its write or at its sync) leaves the log as it
// was: the failed commit is gone, its error says so (ErrNoSpace for
// ENOSPC), and the next commit and every open see the earlier frame.
// The same when the frame is past deferMax (the append an upgrade
// makes before it folds).
func TestOverlayBigFrameAppendFails(t *testing.T) {
	for _, size := range []int{500 << 10, 540 << 10} {
		for _, op := range []string{"overlay", "overlaysync"} {
			for _, errno := range []error{syscall.EIO, syscall.ENOSPC} {
				t.Run(fmt.Sprintf("%d/%s/%v", size, op, errno), func(t *testing.T) {
					dir := emptyStore(t)
					a := randBytes(uint64(3), 450<<10)
					d := mustOpen(t, dir, BadgerOptions{Deferred: true})
					defer d.Close()
					if err := bigCommit(d, "big", a); err != nil {
						t.Fatal(err)
					}
					_, before := logFrames(t, dir)
					remove := SetFaults(func(o, path string) error {
						if o == op {
							return errno
						}
						return nil
					})
					err := bigCommit(d, "big", randBytes(uint64(4), size))
					remove()
					if err == nil || errors.Is(errno, syscall.ENOSPC) != errors.Is(err, ErrNoSpace) {
						t.Fatalf("commit: %v; want the %v", err, errno)
					}
					if n, now := logFrames(t, dir); n != 1 || now != before {
						t.Errorf("after the failed append: %d frames, %d bytes; want 1, %d", n, now, before)
					}
					if got, err := d.Get(tContext, []byte("big")); err != nil || !bytes.Equal(got, a) {
						t.Errorf("the store reads big as %d bytes, %v; want the committed %d", len(got), err, len(a))
					}
					if err := bigCommit(d, "next", []byte("ok")); err != nil {
						t.Fatal(err)
					}
					if err := d.Close(); err != nil {
						t.Fatal(err)
					}
					for _, o := range []BadgerOptions{{ReadOnly: true}, {Deferred: true}, {}} {
						b := mustOpen(t, dir, o)
						if err := b.LogDamage(); err != nil {
							t.Errorf("open %+v: %v", o, err)
						}
						if got, err := b.Get(tContext, []byte("big")); err != nil || !bytes.Equal(got, a) {
							t.Errorf("open %+v: big is %d bytes, %v; want %d", o, len(got), err, len(a))
						}
						mustGet(t, b, "next", "ok")
						b.Close()
					}
				})
			}
		}
	}
}

// TestOverlayLimitsExact: a commit of exactly deferMax bytes goes to
// the log, one byte more opens Badger for writing; a frame that brings
// the log to overlayMax (by the bound persistLocked checks) goes to the
// log, one a byte larger folds it.
func TestOverlayLimitsExact(t *testing.T) {
	frameOf := func(n int) int64 {
		return int64(len(encodeFrame([]overlayOp{{key: []byte("k"), value: make([]byte, n)}})))
	}
	before := []int{510 << 10, 300 << 10} // commits before the last
	// fill is the last commit that fits a log of used bytes.
	fill := func(used int) int {
		room := overlayMax - int64(used) - int64(len(overlayMagic))
		n := int(room - frameOf(0))
		for frameOf(n+1) <= room {
			n++
		}
		for frameOf(n) > room {
			n--
		}
		return n
	}
	cases := []struct {
		name     string
		before   []int // value bytes of earlier commits
		last     int   // and of the last (-1: fill, -2: fill+1)
		deferred bool  // the last stays in the log
	}{
		{"deferMax", nil, int(deferMax) - 1, true},
		{"deferMax+1", nil, int(deferMax), false},
		{"log at overlayMax", before, -1, true},
		{"log past overlayMax", before, -2, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := emptyStore(t)
			d := mustOpen(t, dir, BadgerOptions{Deferred: true})
			defer d.Close()
			for i, n := range c.before {
				if err := bigCommit(d, fmt.Sprintf("a%d", i), randBytes(uint64(5+i), n)); err != nil {
					t.Fatal(err)
				}
			}
			if n, _ := logFrames(t, dir); n != len(c.before) || !d.commitsLater() {
				t.Fatalf("%d frames before the last commit, want %d", n, len(c.before))
			}
			files := dbFiles(t, dir)
			if _, used := logFrames(t, dir); c.last < 0 {
				c.last = fill(used) - c.last - 1
			}
			val := randBytes(7, c.last)
			if err := bigCommit(d, "k", val); err != nil {
				t.Fatal(err)
			}
			n, size := logFrames(t, dir)
			if c.deferred && (n != len(c.before)+1 || !d.commitsLater()) {
				t.Errorf("%d frames, %d bytes, deferred %v; want the commit in the log", n, size, d.commitsLater())
			}
			if !c.deferred && (n != 0 || d.commitsLater()) {
				t.Errorf("%d frames, %d bytes, deferred %v; want the log folded", n, size, d.commitsLater())
			}
			if c.deferred && !equalFiles(files, dbFiles(t, dir)) {
				t.Errorf("a commit to the log changed Badger's files")
			}
			if int64(size) > overlayMax {
				t.Errorf("the log is %d bytes, past overlayMax %d", size, overlayMax)
			}
			t.Logf("last commit %d bytes: %d frames, log %d bytes", c.last, n, size)
			d.Close()
			r := mustOpen(t, dir, BadgerOptions{ReadOnly: true})
			defer r.Close()
			if got, err := r.Get(tContext, []byte("k")); err != nil || !bytes.Equal(got, val) {
				t.Errorf("k is %d bytes, %v; want %d", len(got), err, len(val))
			}
			for i, n := range c.before {
				if got, err := r.Get(tContext, []byte(fmt.Sprintf("a%d", i))); err != nil || len(got) != n {
					t.Errorf("a%d is %d bytes, %v; want %d", i, len(got), err, n)
				}
			}
		})
	}
}

func equalFiles(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestOverlayBigLogDamage: in a log of 31 frames near 1 MiB, a damaged
// frame in the middle (a flipped byte in its body, or in its header)
// costs that frame only: a read-only open shows the 30 others and names
// the damage, a deferred open refuses, a salvage folds the 30 others.
func TestOverlayBigLogDamage(t *testing.T) {
	for _, where := range []string{"body", "header"} {
		t.Run(where, func(t *testing.T) {
			dir := emptyStore(t)
			d := mustOpen(t, dir, BadgerOptions{Deferred: true})
			val := func(i int) []byte { return randBytes(uint64(100+i), 32<<10) }
			for i := range 31 {
				if err := bigCommit(d, fmt.Sprintf("k%02d", i), val(i)); err != nil {
					t.Fatal(err)
				}
			}
			d.Close()
			n, size := logFrames(t, dir)
			if n != 31 || size < 990<<10 {
				t.Fatalf("%d frames, %d bytes; want 31 near 1 MiB", n, size)
			}
			path := filepath.Join(dir, overlayName)
			data, _ := os.ReadFile(path)
			off := overlayHeader
			for range 15 {
				off += frameHeader + int(uint32(data[off])|uint32(data[off+1])<<8|uint32(data[off+2])<<16)
			}
			at := off + frameHeader + 20000
			if where == "header" {
				at = off + 1
			}
			flipByte(t, path, at, 0x10)

			ro := mustOpen(t, dir, BadgerOptions{ReadOnly: true})
			var dmg *LogDamageError
			if err := ro.LogDamage(); !errors.As(err, &dmg) || len(dmg.Damaged) != 1 || dmg.Damaged[0].Offset != int64(off) || dmg.Frames != 30 {
				t.Errorf("LogDamage: %v; want frame 15 at %d damaged, 30 read", err, off)
			}
			for i := range 31 {
				got, err := ro.Get(tContext, []byte(fmt.Sprintf("k%02d", i)))
				if i == 15 && !errors.Is(err, ErrNotFound) {
					t.Errorf("k15, damaged: %d bytes, %v", len(got), err)
				}
				if i != 15 && (err != nil || !bytes.Equal(got, val(i))) {
					t.Errorf("k%02d: %d bytes, %v", i, len(got), err)
				}
			}
			ro.Close()
			if b, err := OpenBadger(tContext, dir, BadgerOptions{Deferred: true}); !errors.As(err, &dmg) {
				if b != nil {
					b.Close()
				}
				t.Errorf("deferred open: %v; want the damage", err)
			}
			s := mustOpen(t, dir, BadgerOptions{Deferred: true, Salvage: true})
			if sv := s.Salvaged(); sv == nil || sv.Frames != 30 {
				t.Errorf("Salvaged: %+v; want 30 frames", sv)
			}
			s.Close()
			w := mustOpen(t, dir, BadgerOptions{})
			defer w.Close()
			for i := range 31 {
				got, err := w.Get(tContext, []byte(fmt.Sprintf("k%02d", i)))
				if i != 15 && (err != nil || !bytes.Equal(got, val(i))) {
					t.Errorf("after the salvage, k%02d: %d bytes, %v", i, len(got), err)
				}
			}
		})
	}
}
