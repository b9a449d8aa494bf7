package s3

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/sessname"
)

// FuzzDecodeRemoteIndex: any bytes decode to a checked index or an
// error, never a panic; what decodes re-encodes to the same bytes.
func FuzzDecodeRemoteIndex(f *testing.F) {
	f.Add(EncodeIndex(100, []Entry{{KindBlob, cas.Hash{1}, 30, 10}, {KindTree, cas.Hash{2}, 40, 60}}))
	f.Add(EncodeIndex(int64(len(PackHeader)), nil))
	f.Add([]byte(indexMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		size, es, err := DecodeIndex(b)
		if err != nil {
			return
		}
		if !bytes.Equal(EncodeIndex(size, es), b) {
			t.Fatal("not canonical")
		}
	})
}

// FuzzDecodeHead: any bytes decode to a checked head or an error; a
// decoded head re-encodes to one that decodes the same.
func FuzzDecodeHead(f *testing.F) {
	id := cas.Sum(nil).String()
	f.Add(EncodeHead(&Head{Session: "s", Packs: []string{id}, Records: []Record{{Key: "m/sess/s", Value: []byte(`{"a":1}`)}}}))
	f.Add([]byte(`{"v":1,"session":"x","packs":[],"records":[{"k":"m/turn/x/000000000001","v":{}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := DecodeHead(b)
		if err != nil {
			return
		}
		h2, err := DecodeHead(EncodeHead(h))
		if err != nil || h2.Session != h.Session || len(h2.Records) != len(h.Records) || len(h2.Packs) != len(h.Packs) {
			t.Fatalf("re-decode: %v", err)
		}
	})
}

// FuzzDecodePending and FuzzParseChunkList: no panic on any bytes.
func FuzzDecodePending(f *testing.F) {
	f.Add([]byte(`{"v":1,"packs":["` + cas.Sum(nil).String() + `"]}`))
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = DecodePending(b) })
}

func FuzzVerifyRecord(f *testing.F) {
	f.Add(append([]byte{1}, 0x28, 0xb5, 0x2f, 0xfd), cas.Sum(nil).String())
	f.Add(append([]byte{3}, make([]byte, 40)...), "")
	f.Fuzz(func(t *testing.T, b []byte, hs string) {
		h, _ := cas.ParseHash(hs)
		if data, err := VerifyRecord(h, b); err == nil && cas.Sum(data) != h {
			t.Fatal("verified wrong content")
		}
		_, _ = ParseChunkList(h, b)
	})
}

// FuzzParseKeys: object names and addresses from a server or a user
// parse or are refused, never panic; what parses is what the builders
// make.
func FuzzParseKeys(f *testing.F) {
	id := cas.Sum([]byte("x"))
	f.Add(HeadKey("", "s%2F", 7, id), "s3://bucket/a/b")
	f.Add(IndexKey("", id), "s3://b")
	f.Add(PackKey("", id), "s3://bb/")
	f.Add(HeadKey("", "Foo!Bar", 7, id), "")
	f.Add("heads/Foo/00000000000000000007-"+id.String()[:32]+".json", "")
	f.Add("heads/%2e%2e/00000000000000000007-"+id.String()[:32]+".json", "")
	f.Fuzz(func(t *testing.T, key, u string) {
		if s, n, sum, ok := ParseHeadKey(key); ok {
			if sessname.Check(s) != nil {
				t.Fatalf("%q -> session %q", key, s)
			}
			h, _ := cas.ParseHash(sum + sum)
			got := HeadKey("", s, n, h)
			file := got[len(HeadsDir("", s)):]
			if got[:len(got)-len(".json")-32] != key[:len(key)-len(".json")-32] &&
				!slices.Contains(HeadsDirs("", s), key[:len(key)-len(file)]) {
				t.Fatalf("%q -> %q", key, got)
			}
			if strings.ContainsFunc(regexp.MustCompile(`%[0-9A-F]{2}`).ReplaceAllString(HeadsDir("", s), ""), unicode.IsUpper) {
				t.Fatalf("%q: capital letters in %q", key, HeadsDir("", s))
			}
		}
		if h, idx, ok := ParsePackKey(key); ok {
			want := PackKey("", h)
			if idx {
				want = IndexKey("", h)
			}
			if want != key {
				t.Fatalf("%q -> %q", key, want)
			}
		}
		if b, p, err := ParseURL(u); err == nil {
			if b == "" || (p != "" && p[len(p)-1] != '/') {
				t.Fatalf("%q -> %q %q", u, b, p)
			}
		}
	})
}
