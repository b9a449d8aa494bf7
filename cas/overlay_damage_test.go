package cas

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fiveFrames returns a log of five frames, frame i writing k<i> (and, in
// the middle one, a value long enough to cross sector boundaries), and
// where each frame starts.
func fiveFrames() ([][]overlayOp, []byte, []int) {
	var frames [][]overlayOp
	for i := range 5 {
		v := []byte(fmt.Sprintf("value %d", i))
		if i == 2 || i == 4 {
			v = bytes.Repeat([]byte{byte('a' + i)}, 1500)
		}
		frames = append(frames, []overlayOp{{key: []byte(fmt.Sprintf("k%d", i)), value: v}, {key: []byte("seq"), value: []byte{byte(i)}}})
	}
	log := append(bytes.Clone(overlayMagic), bytes.Repeat([]byte{7}, overlayIDLen)...)
	var starts []int
	for _, f := range frames {
		starts = append(starts, len(log))
		log = append(log, encodeFrame(f)...)
	}
	return frames, log, starts
}

// TestOverlayDamageKeepsOtherFrames: one flipped byte anywhere in a
// frame (its length, its complement, its checksum, its body), the first,
// a middle or the last one, is a *LogDamageError naming the frame's
// offset, and every other frame is read, in order. Before, a damaged
// frame ended the read (every command failed), and damage in the last
// frame was taken for a torn append and dropped without a word.
func TestOverlayDamageKeepsOtherFrames(t *testing.T) {
	frames, log, starts := fiveFrames()
	for f := range frames {
		size := len(encodeFrame(frames[f]))
		for _, at := range []int{0, 2, 5, 9, frameHeader, frameHeader + 1, size / 2, size - 1} {
			bad := bytes.Clone(log)
			bad[starts[f]+at] ^= 0x04
			got, _, err := parseAll(t, bad)
			var d *LogDamageError
			if !errors.As(err, &d) || !errors.Is(err, ErrDamaged) {
				t.Errorf("frame %d byte %d: %v; want a *LogDamageError", f, at, err)
				continue
			}
			if d.Damaged[0].Offset != int64(starts[f]) || d.Frames != 4 || !strings.Contains(err.Error(), fmt.Sprintf("at byte %d", starts[f])) {
				t.Errorf("frame %d byte %d: %+v (%v); want damage at %d, 4 frames", f, at, d, err, starts[f])
			}
			want := append(append([][]overlayOp{}, frames[:f]...), frames[f+1:]...)
			if len(got) != len(want) {
				t.Errorf("frame %d byte %d: %d frames read, want %d", f, at, len(got), len(want))
				continue
			}
			for i := range want {
				if !sameOps(got[i], want[i]) {
					t.Errorf("frame %d byte %d: frame %d read is %+v, want %+v", f, at, i, got[i], want[i])
				}
			}
		}
	}
}

// TestOverlayDamageHeader: a damaged magic is damage at byte 0, and the
// frames are still read; a damaged id cannot be told (it is random) and
// reads as a whole log.
func TestOverlayDamageHeader(t *testing.T) {
	frames, log, _ := fiveFrames()
	for at := range overlayHeader {
		bad := bytes.Clone(log)
		bad[at] ^= 0x01
		got, _, err := parseAll(t, bad)
		if len(got) != len(frames) {
			t.Errorf("header byte %d: %d frames read, want %d", at, len(got), len(frames))
		}
		var d *LogDamageError
		if at < len(overlayMagic) && (!errors.As(err, &d) || d.Damaged[0].Offset != 0) {
			t.Errorf("magic byte %d: %v; want damage at byte 0", at, err)
		}
		if at >= len(overlayMagic) && err != nil {
			t.Errorf("id byte %d: %v", at, err)
		}
	}
}

// TestOverlayTornTail: what a crash leaves at the end of an append is a
// torn end, read as nothing and no error: the last frame cut anywhere,
// its bytes zeroes from a sector boundary to the end (a file size that
// reached the disk before its data), zeroes after the last frame.
func TestOverlayTornTail(t *testing.T) {
	frames, log, starts := fiveFrames()
	last := starts[4]
	check := func(name string, data []byte) {
		t.Helper()
		got, valid, err := parseAll(t, data)
		if err != nil || valid != int64(last) || len(got) != 4 {
			t.Errorf("%s: %d frames, valid %d, %v; want 4, %d, no error", name, len(got), valid, err, last)
		}
	}
	for cut := last; cut < len(log); cut += 7 {
		check(fmt.Sprintf("cut at %d", cut), log[:cut])
	}
	for z := (last + frameHeader + 511) &^ 511; z < len(log); z += 512 {
		torn := bytes.Clone(log)
		clear(torn[z:])
		check(fmt.Sprintf("zeroes from sector %d", z/512), torn)
	}
	check("zeroes after the frames", append(bytes.Clone(log[:last]), make([]byte, 700)...))
	// Zeroes at the end that hold no sector boundary are damage.
	bad := bytes.Clone(log)
	z := max(len(log)-3, (len(log)-1)&^511+1)
	clear(bad[z:])
	if got, _, err := parseAll(t, bad); !errors.Is(err, ErrDamaged) || len(got) != 4 {
		t.Errorf("zeroes from byte %d: %d frames, %v; want 4 and damage", z, len(got), err)
	}
	_ = frames
}

// commitFrames commits n frames to a deferred store in dir, frame i
// writing k<i> = v<i>, and returns the log's frame offsets.
func commitFrames(t *testing.T, dir string, n int) []int {
	t.Helper()
	d := mustOpen(t, dir, BadgerOptions{Deferred: true})
	for i := range n {
		if err := d.Set(t.Context(), Entry{Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(fmt.Sprintf("v%d", i))}); err != nil {
			t.Fatal(err)
		}
		if err := d.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, overlayName))
	if err != nil {
		t.Fatal(err)
	}
	var starts []int
	for off := overlayHeader; off < len(data); {
		starts = append(starts, off)
		n := int(uint32(data[off]) | uint32(data[off+1])<<8 | uint32(data[off+2])<<16 | uint32(data[off+3])<<24)
		off += frameHeader + n
	}
	if len(starts) != n {
		t.Fatalf("%d frames in the log, want %d", len(starts), n)
	}
	return starts
}

func flipByte(t *testing.T, path string, at int, mask byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[at] ^= mask
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestOverlayDamagedStore: a store whose log has a flipped byte in a
// middle frame, or in its last frame: a read-only open shows every
// other frame and reports the damage (LogDamage); a deferred or a
// write-mode open refuses with it, changing nothing; an open with
// Salvage folds every other frame, keeps the damaged log aside byte for
// byte, and leaves a store every open takes, without the damage.
func TestOverlayDamagedStore(t *testing.T) {
	for _, frame := range []int{2, 4} {
		t.Run(fmt.Sprintf("frame%d", frame), func(t *testing.T) {
			ctx := t.Context()
			dir := emptyStore(t)
			starts := commitFrames(t, dir, 5)
			path := filepath.Join(dir, overlayName)
			flipByte(t, path, starts[frame]+frameHeader+1, 0x20)
			damaged, _ := os.ReadFile(path)

			ro := mustOpen(t, dir, BadgerOptions{ReadOnly: true})
			var d *LogDamageError
			if err := ro.LogDamage(); !errors.As(err, &d) || d.Damaged[0].Offset != int64(starts[frame]) || d.Path != path {
				t.Errorf("LogDamage: %v; want damage at %d in %s", err, starts[frame], path)
			}
			for i := range 5 {
				want := fmt.Sprintf("v%d", i)
				if i == frame {
					want = ""
				}
				mustGet(t, ro, fmt.Sprintf("k%d", i), want)
			}
			ro.Close()

			for _, o := range []BadgerOptions{{Deferred: true}, {}} {
				if b, err := OpenBadger(ctx, dir, o); !errors.As(err, &d) {
					if b != nil {
						b.Close()
					}
					t.Errorf("open %+v: %v; want the *LogDamageError", o, err)
				}
				if now, _ := os.ReadFile(path); !bytes.Equal(now, damaged) {
					t.Errorf("open %+v changed the damaged log", o)
				}
			}

			s := mustOpen(t, dir, BadgerOptions{Deferred: true, Salvage: true})
			sv := s.Salvaged()
			if sv == nil || sv.Frames != 4 || len(sv.Damaged) != 1 || sv.Damaged[0].Offset != int64(starts[frame]) {
				t.Fatalf("Salvaged: %+v", sv)
			}
			if kept, err := os.ReadFile(sv.MovedTo); err != nil || !bytes.Equal(kept, damaged) || filepath.Dir(sv.MovedTo) != dir {
				t.Errorf("the damaged log kept in %s: %d bytes, %v; want it byte for byte beside the log", sv.MovedTo, len(kept), err)
			}
			if err := s.Set(ctx, Entry{Key: []byte("after"), Value: []byte("repair")}); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the damaged log is still in place: %v", err)
			}
			for _, o := range []BadgerOptions{{ReadOnly: true}, {Deferred: true}, {}} {
				b := mustOpen(t, dir, o)
				if b.LogDamage() != nil || b.Salvaged() != nil {
					t.Errorf("open %+v after the salvage: %v, %+v", o, b.LogDamage(), b.Salvaged())
				}
				for i := range 5 {
					want := fmt.Sprintf("v%d", i)
					if i == frame {
						want = ""
					}
					mustGet(t, b, fmt.Sprintf("k%d", i), want)
				}
				mustGet(t, b, "after", "repair")
				b.Close()
			}
		})
	}
}

// TestOverlayFoldBound: a deferred writer folds the log once it holds
// overlayMaxFrames frames, or once its first frame is older than
// overlayMaxAge, or when its age is unknown (a random id of an earlier
// turnback), so that records wait in the log only a little.
func TestOverlayFoldBound(t *testing.T) {
	dir := emptyStore(t)
	ctx := t.Context()
	path := filepath.Join(dir, overlayName)
	frames := func() int {
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return 0
		}
		n := 0
		_, _, err = parseOverlay(data, func([]overlayOp) { n++ })
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	most := 0
	for i := range 3*overlayMaxFrames + 5 {
		d := mustOpen(t, dir, BadgerOptions{Deferred: true})
		if err := d.Set(ctx, Entry{Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte("v")}); err != nil {
			t.Fatal(err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		most = max(most, frames())
	}
	if most > overlayMaxFrames {
		t.Errorf("the log held %d frames; the bound is %d", most, overlayMaxFrames)
	}

	age := func(clock time.Time) int {
		t.Helper()
		defer func(c func() time.Time) { overlayClock = c }(overlayClock)
		overlayClock = func() time.Time { return clock }
		d := mustOpen(t, dir, BadgerOptions{Deferred: true})
		defer d.Close()
		if err := d.Set(ctx, Entry{Key: []byte("aged"), Value: []byte(clock.String())}); err != nil {
			t.Fatal(err)
		}
		if err := d.Sync(); err != nil {
			t.Fatal(err)
		}
		return frames()
	}
	start := frames()
	if n := age(time.Now()); n != start+1 {
		t.Fatalf("a commit now: %d frames, want %d", n, start+1)
	}
	if n := age(time.Now().Add(overlayMaxAge - time.Minute)); n != start+2 {
		t.Errorf("a commit before the log is overlayMaxAge old: %d frames, want %d", n, start+2)
	}
	if n := age(time.Now().Add(overlayMaxAge + time.Minute)); n != 0 {
		t.Errorf("a commit once the log is older than overlayMaxAge: %d frames, want it folded", n)
	}
	// A log of an earlier turnback: its id is random, its age unknown.
	if n := age(time.Now()); n != 1 {
		t.Fatalf("a new log: %d frames", n)
	}
	flipByte(t, path, len(overlayMagic), 0x80) // the id's time is now decades off
	if n := age(time.Now()); n != 0 {
		t.Errorf("a commit to a log of unknown age: %d frames, want it folded", n)
	}
}
