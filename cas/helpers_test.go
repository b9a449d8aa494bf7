package cas

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"testing"
	"testing/iotest"
)

// splitmix64 is a tiny, fixed pseudo-random generator: test data made
// from it is the same on every Go version, which the golden chunk test
// depends on.
type splitmix64 uint64

func (s *splitmix64) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// randBytes returns n incompressible pseudo-random bytes fixed by seed.
func randBytes(seed uint64, n int) []byte {
	r := splitmix64(seed)
	b := make([]byte, (n+7)&^7)
	for i := 0; i < len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], r.next())
	}
	return b[:n]
}

// textBytes returns n bytes of compressible, source-like text fixed by seed.
func textBytes(seed uint64, n int) []byte {
	r := splitmix64(seed)
	b := make([]byte, n+8)
	for i := 0; i < n; {
		w := &textWords[r.next()%uint64(len(textWords))]
		// One 8-byte store per word: a copy per word cost most of
		// the time of the tests that make megabytes of text.
		*(*[8]byte)(b[i:]) = w.b
		i += int(w.n)
	}
	return b[:n:n]
}

// textWords are textBytes' words, each padded to 8 bytes.
var textWords = func() []struct {
	b [8]byte
	n uint8
} {
	words := []string{"func ", "return ", "err ", "!= ", "nil ", "{\n", "}\n", "\t", "ctx, ",
		"if ", "for ", "range ", "x ", ":= ", "data", "[]byte", "(", ")", "\n", "// ", "store "}
	out := make([]struct {
		b [8]byte
		n uint8
	}, len(words))
	for i, w := range words {
		copy(out[i].b[:], w)
		out[i].n = uint8(len(w))
	}
	return out
}()

// backendKinds are the backends the Store tests run against.
var backendKinds = []struct {
	name string
	open func(t testing.TB) Backend
}{
	{"memory", func(testing.TB) Backend { return NewMemory() }},
	{"badger", func(t testing.TB) Backend { return openTestBadger(t, t.TempDir()) }},
}

// forEachBackend runs f as a subtest per backend kind with a fresh Store,
// closed at the end of the subtest.
func forEachBackend(t *testing.T, f func(t *testing.T, s *Store)) {
	for _, k := range backendKinds {
		t.Run(k.name, func(t *testing.T) {
			f(t, newTestStore(t, k.open(t)))
		})
	}
}

func newTestStore(t testing.TB, b Backend) *Store {
	t.Helper()
	s, err := NewStore(b)
	if err != nil {
		t.Fatalf("NewStore: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Store.Close: %v", err)
		}
	})
	return s
}

// putFile stores data with PutFile in a Writer of its own and flushes it.
func putFile(t testing.TB, s *Store, data []byte) (Hash, WriteStats) {
	t.Helper()
	w := s.NewWriter()
	defer w.Cancel()
	h, n, err := w.PutFile(context.Background(), bytesReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("PutFile(%d bytes): %v", len(data), err)
	}
	if n != int64(len(data)) {
		t.Fatalf("PutFile size = %d, want %d", n, len(data))
	}
	if err := w.Flush(); err != nil {
		t.Fatalf("Flush: %v", err)
	}
	return h, w.Stats()
}

// bytesReader reads data in uneven pieces, so that nothing may depend on
// how a reader splits its reads.
func bytesReader(data []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(data)) }
