package cas

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// FuzzDecodeIndex: decodeIndex never panics, fails only with ErrCorrupt,
// and what it accepts has every chunk size in (0, MaxChunk] and encodes
// back to the same record.
func FuzzDecodeIndex(f *testing.F) {
	h1, h2 := Sum([]byte("one")), Sum([]byte("two"))
	valid := []byte{indexVersion}
	valid = append(valid, h1[:]...)
	valid = binary.AppendUvarint(valid, MaxChunk)
	valid = append(valid, h2[:]...)
	valid = binary.AppendUvarint(valid, 1)
	f.Add(valid)
	f.Add(valid[:len(valid)-1])
	f.Add([]byte{indexVersion})
	f.Add([]byte{})
	f.Add([]byte{2})
	over := append([]byte{indexVersion}, h1[:]...)
	f.Add(binary.AppendUvarint(over, MaxChunk+1))
	f.Add(append(append([]byte{indexVersion}, h1[:]...), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01))
	f.Add(append(append([]byte{indexVersion}, h1[:]...), 0x80, 0x00)) // non-minimal varint

	f.Fuzz(func(t *testing.T, rec []byte) {
		h := Sum(rec)
		refs, err := decodeIndex(h, rec)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			if refs != nil {
				t.Fatalf("refs returned with an error")
			}
			return
		}
		re := []byte{indexVersion}
		for _, r := range refs {
			if r.Size <= 0 || r.Size > MaxChunk {
				t.Fatalf("accepted chunk size %d", r.Size)
			}
			re = append(re, r.Hash[:]...)
			re = binary.AppendUvarint(re, uint64(r.Size))
		}
		// Non-minimal varints decode too; anything else must round trip.
		if len(re) > len(rec) {
			t.Fatalf("re-encoded record is longer (%d) than the input (%d)", len(re), len(rec))
		}
	})
}

// FuzzDecodeBlob: Store.decode never panics, fails only with ErrCorrupt,
// and returns data only when it hashes to the address asked for. It also
// checks that encode/decode round trip content.
func FuzzDecodeBlob(f *testing.F) {
	s, err := NewStore(NewMemory())
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	for _, content := range [][]byte{
		nil,
		[]byte("x"),
		textBytes(1, 64),
		textBytes(2, 3000),
		randBytes(3, 300),
		bytes.Repeat([]byte{0}, 5000),
	} {
		enc := s.encode(content)
		f.Add(content, enc)
		f.Add(content, enc[:len(enc)/2])
		f.Add(content, append([]byte{codecZstd}, enc[1:]...))
		f.Add([]byte("other"), enc)
	}
	f.Add([]byte("x"), []byte{})
	f.Add([]byte("x"), []byte{7, 'x'})
	// Block members (codecBlock): a span of a raw or zstd block.
	block := append(textBytes(4, 2000), textBytes(5, 700)...)
	for _, stored := range [][]byte{s.encodeBlock(s.enc, nil, block), append([]byte{codecRaw}, block...)} {
		m := memberValue(2000, 700, stored)
		f.Add(textBytes(5, 700), m)
		f.Add(textBytes(5, 700), m[:len(m)/2])
		f.Add(textBytes(5, 700), memberValue(2000, 701, stored))
		f.Add(textBytes(5, 700), memberValue(1<<62, 700, stored))
	}
	f.Add([]byte("x"), memberValue(0, 1, memberValue(0, 1, []byte{codecRaw, 'x'})))

	f.Fuzz(func(t *testing.T, content, stored []byte) {
		h := Sum(content)
		got, err := s.decode(h, stored)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
		} else if Sum(got) != h {
			t.Fatalf("decode returned %d bytes that do not hash to the address", len(got))
		}

		// Whatever the content, what encode stores decodes back to it.
		enc := s.encode(content)
		back, err := s.decode(h, enc)
		if err != nil || !bytes.Equal(back, content) {
			t.Fatalf("encode/decode of %d bytes: %v", len(content), err)
		}
		if len(enc) > len(content)+1 {
			t.Fatalf("stored form of %d bytes is %d bytes", len(content), len(enc))
		}
	})
}

// FuzzParseManifest: any bytes given as a Badger MANIFEST parse or fail
// with an error, never panic; what parses lists only tables it mentions.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte("Bdgr\x00\x00\x00\x08"))
	f.Add([]byte("Bdgr\x00\x00\x00\x08\x00\x00"))
	f.Add([]byte("Bdgr\x00\x00\x00\x08\x00\x00\x00\x04\x00\x00\x00\x00\x0a\x02\x08\x01"))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseManifest(b)
		if err != nil {
			return
		}
		for id := range m.live {
			if id > m.maxID {
				t.Fatalf("table %d listed above the highest id %d", id, m.maxID)
			}
		}
	})
}
