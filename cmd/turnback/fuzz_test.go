package main

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"unicode/utf8"

	"github.com/turnback/turnback"
)

// FuzzReadFrame feeds the watch daemon's frame decoder arbitrary bytes
// (what a client or daemon might send): it never panics, never returns
// a frame over its limit or a short one, ends cleanly (io.EOF) only
// between frames, and every frame it
// returns re-encodes to the bytes it was read from.
func FuzzReadFrame(f *testing.F) {
	var seed bytes.Buffer
	_ = writeFrame(&seed, frameRequest, []byte(`{"version":1,"op":"ping"}`))
	_ = writeFrame(&seed, frameStdout, []byte("hello\n"))
	_ = writeFrame(&seed, frameExit, []byte("0"))
	f.Add(seed.Bytes())
	f.Add([]byte{frameRequest, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{frameStdout, 0, 0, 0, 9, 'a'})
	f.Add([]byte{})
	const limit = 64
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bytes.NewReader(in)
		consumed := 0
		for {
			kind, data, err := readFrameMax(r, limit)
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
			if err := writeFrame(&again, kind, data); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Bytes(), in[consumed:consumed+again.Len()]) {
				t.Fatalf("frame %q (kind %d) does not re-encode to its bytes", data, kind)
			}
			consumed += again.Len()
		}
	})
}

// FuzzSessionName: any non-empty session id an agent sends becomes a
// valid session name, the same one every time.
func FuzzSessionName(f *testing.F) {
	for _, s := range []string{"3f1c9a52-7d0e-4b8a-9c41-2e5d6f7a8b90", "a b/c", "\x00\x7f", "é", "\xff\xfe", string(make([]byte, 300))} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if id == "" {
			return
		}
		name := sessionName(id)
		if err := turnback.ValidSession(name); err != nil {
			t.Fatalf("sessionName(%q) = %q: %v", id, name, err)
		}
		if !utf8.ValidString(name) || hasControl(name) {
			t.Fatalf("sessionName(%q) = %q: invalid UTF-8 or a control character", id, name)
		}
		if again := sessionName(id); again != name {
			t.Fatalf("sessionName(%q) is %q, then %q", id, name, again)
		}
	})
}
