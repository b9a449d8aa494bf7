package cas

import (
	"bytes"
	"errors"
	"testing"
)

// framesFixture returns three frames and the log holding them.
func framesFixture() ([][]overlayOp, []byte) {
	frames := [][]overlayOp{
		{{key: []byte("k1"), value: []byte("v1")}, {key: []byte("k2"), value: bytes.Repeat([]byte("x"), 300)}},
		{{key: []byte("k1"), del: true}, {key: []byte("k3"), value: []byte{}}},
		{{key: []byte("k2"), value: []byte("v2 again")}, {key: []byte("k4"), value: []byte("through a batch"), pack: true}},
	}
	log := append(bytes.Clone(overlayMagic), bytes.Repeat([]byte{7}, overlayIDLen)...)
	for _, f := range frames {
		log = append(log, encodeFrame(f)...)
	}
	return frames, log
}

func parseAll(t *testing.T, data []byte) ([][]overlayOp, int64, error) {
	t.Helper()
	var got [][]overlayOp
	_, n, err := parseOverlay(data, func(ops []overlayOp) { got = append(got, ops) })
	return got, n, err
}

func sameOps(a, b []overlayOp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i].key, b[i].key) || !bytes.Equal(a[i].value, b[i].value) || a[i].del != b[i].del || a[i].pack != b[i].pack {
			return false
		}
	}
	return true
}

// TestOverlayParse: whole frames are read in order; a log cut anywhere
// in its last frame (a torn append) reads as the frames before it, with
// the valid length at their end; damage with committed frames after it,
// or a bad header, is ErrDamaged.
func TestOverlayParse(t *testing.T) {
	frames, log := framesFixture()
	got, n, err := parseAll(t, log)
	if err != nil || n != int64(len(log)) || len(got) != 3 {
		t.Fatalf("whole log: %d frames, valid %d of %d, %v", len(got), n, len(log), err)
	}
	for i := range frames {
		if !sameOps(got[i], frames[i]) {
			t.Errorf("frame %d: %+v, want %+v", i, got[i], frames[i])
		}
	}
	lastStart := len(log) - len(encodeFrame(frames[2]))
	for cut := lastStart; cut < len(log); cut++ {
		got, n, err := parseAll(t, log[:cut])
		if err != nil || n != int64(lastStart) || len(got) != 2 {
			t.Errorf("cut at %d: %d frames, valid %d, %v; want 2, %d", cut, len(got), n, err, lastStart)
		}
	}
	// A flipped byte in the last frame's body is damage, not a torn
	// write (TestOverlayTornTail has those): the frames before it are
	// read.
	flipped := bytes.Clone(log)
	flipped[len(flipped)-1] ^= 0xff
	if got, _, err := parseAll(t, flipped); !errors.Is(err, ErrDamaged) || len(got) != 2 {
		t.Errorf("damaged last frame: %d frames, %v; want 2 and ErrDamaged", len(got), err)
	}
	// The same damage in the first frame, with frames after it: in its
	// body, in its length (a bit of every byte), in its checksum.
	for _, at := range []int{frameHeader + 3, 0, 1, 2, 3, 9} {
		bad := bytes.Clone(log)
		bad[overlayHeader+at] ^= 0x10
		if _, _, err := parseAll(t, bad); !errors.Is(err, ErrDamaged) {
			t.Errorf("first frame damaged at byte %d: %v, want ErrDamaged", at, err)
		}
	}
	// A damaged header followed by zeroes only: a file size a crash
	// extended past its data, torn.
	zeroed := append(bytes.Clone(log[:lastStart]), make([]byte, 40)...)
	if got, n, err := parseAll(t, zeroed); err != nil || n != int64(lastStart) || len(got) != 2 {
		t.Errorf("zeroes after two frames: %d frames, valid %d, %v", len(got), n, err)
	}
	for _, head := range [][]byte{[]byte("TBOVL01\n"), []byte("TBOVL03\n"), []byte("nonsense")} {
		if _, _, err := parseAll(t, append(head, log[len(overlayMagic):]...)); !errors.Is(err, ErrDamaged) {
			t.Errorf("header %q: %v, want ErrDamaged", head, err)
		}
	}
	for cut := range overlayHeader {
		if got, n, err := parseAll(t, log[:cut]); err != nil || n != 0 || len(got) != 0 {
			t.Errorf("header cut at %d: %d frames, %d, %v", cut, len(got), n, err)
		}
	}
}

// FuzzOverlay: any bytes parse without panicking; the valid prefix
// parses again to the same frames, and they encode back to it.
func FuzzOverlay(f *testing.F) {
	_, log := framesFixture()
	f.Add(log)
	f.Add(log[:len(log)-3])
	f.Add(append(bytes.Clone(log[:overlayHeader]), 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0x80, 1, 2, 3, 4))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, n, err := parseAll(t, data)
		if err != nil {
			return
		}
		if n > int64(len(data)) {
			t.Fatalf("valid length %d past the end %d", n, len(data))
		}
		again, n2, err := parseAll(t, data[:n])
		if err != nil || n2 != n || len(again) != len(got) {
			t.Fatalf("valid prefix reparsed: %d frames, %d, %v; first: %d frames, %d", len(again), n2, err, len(got), n)
		}
		if n == 0 {
			return
		}
		enc := bytes.Clone(data[:overlayHeader])
		for _, ops := range got {
			enc = append(enc, encodeFrame(ops)...)
		}
		if !bytes.Equal(enc, data[:n]) {
			t.Fatalf("frames do not encode back to the valid prefix")
		}
	})
}
