package cas

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// TestReadAllSized: the log reads whole whatever size its lstat gave:
// exact, short (the log grew since), long (it was cut since), zero,
// through a reader that returns one byte at a time, and an error is
// returned as it is.
func TestReadAllSized(t *testing.T) {
	content := bytes.Repeat([]byte("frame "), 2000)
	for _, tt := range []struct {
		name string
		size int64
		r    func() io.Reader
	}{
		{"exact", int64(len(content)), func() io.Reader { return bytes.NewReader(content) }},
		{"grew", 100, func() io.Reader { return bytes.NewReader(content) }},
		{"cut", int64(len(content)) * 3, func() io.Reader { return bytes.NewReader(content) }},
		{"zero", 0, func() io.Reader { return bytes.NewReader(content) }},
		{"one byte at a time", 7, func() io.Reader { return iotest.OneByteReader(bytes.NewReader(content)) }},
		{"data with EOF", int64(len(content)), func() io.Reader { return iotest.DataErrReader(bytes.NewReader(content)) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAllSized(tt.r(), tt.size)
			if err != nil || !bytes.Equal(got, content) {
				t.Fatalf("read %d bytes, %v; want the %d bytes", len(got), err, len(content))
			}
		})
	}
	boom := errors.New("boom")
	if _, err := readAllSized(iotest.TimeoutReader(bytes.NewReader(content)), 10); err == nil {
		t.Fatal("a reader's error was not returned")
	}
	if _, err := readAllSized(iotest.ErrReader(boom), 10); !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
}
