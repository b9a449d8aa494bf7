package daemon

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReadFrame feeds the watch daemon's frame decoder arbitrary bytes
// (what a client or daemon might send): it never panics, never returns
// a frame over its limit or a short one, ends cleanly (io.EOF) only
// between frames, and every frame it
// returns re-encodes to the bytes it was read from.
func FuzzReadFrame(f *testing.F) {
	var seed bytes.Buffer
	_ = WriteFrame(&seed, FrameRequest, []byte(`{"version":1,"op":"ping"}`))
	_ = WriteFrame(&seed, FrameStdout, []byte("hello\n"))
	_ = WriteFrame(&seed, FrameExit, []byte("0"))
	f.Add(seed.Bytes())
	f.Add([]byte{FrameRequest, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{FrameStdout, 0, 0, 0, 9, 'a'})
	f.Add([]byte{})
	const limit = 64
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bytes.NewReader(in)
		consumed := 0
		for {
			kind, data, err := ReadFrameMax(r, limit)
			if err != nil {
				// A clean end only between frames; a header promising
				// more than there is is an error, never a short frame.
				if consumed == len(in) && !errors.Is(err, io.EOF) {
					t.Fatalf("at the end of the input: %v, want io.EOF", err)
				}
				return
			}
			if len(data) > limit {
				t.Fatalf("frame of %d bytes over the limit %d", len(data), limit)
			}
			var again bytes.Buffer
			if err := WriteFrame(&again, kind, data); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Bytes(), in[consumed:consumed+again.Len()]) {
				t.Fatalf("frame %q (kind %d) does not re-encode to its bytes", data, kind)
			}
			consumed += again.Len()
		}
	})
}
