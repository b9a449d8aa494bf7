package s3

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/turnback/turnback/cas"
)

func TestIndexRoundTrip(t *testing.T) {
	es := []Entry{
		{Kind: KindBlob, Hash: cas.Sum([]byte("b")), Offset: 40, Length: 7},
		{Kind: KindTree, Hash: cas.Sum([]byte("a")), Offset: int64(len(PackHeader)), Length: 10},
		{Kind: KindChunkList, Hash: cas.Sum([]byte("c")), Offset: 47, Length: 34},
	}
	b := EncodeIndex(81, es)
	size, got, err := DecodeIndex(b)
	if err != nil || size != 81 || len(got) != 3 || got[0].Kind != KindTree || got[2] != es[2] {
		t.Fatalf("got %d %+v %v", size, got, err)
	}
	for i := range b {
		bad := bytes.Clone(b)
		bad[i] ^= 1
		if _, _, err := DecodeIndex(bad); !errors.Is(err, cas.ErrCorrupt) {
			t.Fatalf("flip at %d: %v", i, err)
		}
	}
	for _, c := range []struct {
		name string
		size int64
		es   []Entry
	}{
		{"overlap", 100, []Entry{{KindBlob, cas.Hash{1}, 30, 10}, {KindBlob, cas.Hash{2}, 35, 10}}},
		{"outside", 40, []Entry{{KindBlob, cas.Hash{1}, 30, 11}}},
		{"in header", 100, []Entry{{KindBlob, cas.Hash{1}, 3, 10}}},
		{"kind", 100, []Entry{{Kind(9), cas.Hash{1}, 30, 10}}},
		{"empty record", 100, []Entry{{KindBlob, cas.Hash{1}, 30, 0}}},
	} {
		if _, _, err := DecodeIndex(EncodeIndex(c.size, c.es)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestHeadRoundTrip(t *testing.T) {
	id := cas.Sum([]byte("x")).String()
	h := &Head{Session: "s-1", Packs: []string{id}, Records: []Record{
		{Key: "m/turn/s-1/000000000001", Value: []byte(`{"turn":1}`)},
		{Key: "m/sess/s-1", Value: []byte(`{"name":"s-1"}`)},
		{Key: "m/snap/" + id, Value: []byte(`{}`)},
	}}
	b := EncodeHead(h)
	got, err := DecodeHead(b)
	if err != nil || got.Records[0].Key != "m/sess/s-1" {
		t.Fatalf("%+v %v", got, err)
	}
	if !bytes.Equal(EncodeHead(got), b) {
		t.Fatal("not canonical")
	}
	for name, bad := range map[string]*Head{
		"other session": {Session: "s-1", Records: []Record{{Key: "m/sess/s-2", Value: []byte(`{}`)}}},
		"other turn":    {Session: "s-1", Records: []Record{{Key: "m/turn/s-2/000000000001", Value: []byte(`{}`)}}},
		"unknown key":   {Session: "s-1", Records: []Record{{Key: "b/x", Value: []byte(`{}`)}}},
		"upper hex":     {Session: "s-1", Packs: []string{"AB" + id[2:]}},
		"not object":    {Session: "s-1", Records: []Record{{Key: "m/sess/s-1", Value: []byte(`[1]`)}}},
	} {
		if _, err := DecodeHead(EncodeHead(bad)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestKeys(t *testing.T) {
	s := "a%b:c"
	id := cas.Sum([]byte("x"))
	key := HeadKey("p/", s, 12345, id)
	got, n, sum, ok := ParseHeadKey(key[len("p/"):])
	if !ok || got != s || n != 12345 || sum != id.String()[:32] {
		t.Fatalf("%q: %q %d %q %v", key, got, n, sum, ok)
	}
	if h, idx, ok := ParsePackKey(IndexKey("", id)); !ok || !idx || h != id {
		t.Fatal("index key")
	}
	if _, _, ok := ParsePackKey("packs/" + id.String() + ".tmp"); ok {
		t.Fatal("tmp")
	}
	for _, u := range []string{"s3://bk", "http://b/x", "s3://Bucket/x", "s3://bkt/a//x"} {
		if _, _, err := ParseURL(u); !errors.Is(err, ErrURL) {
			t.Errorf("%s: %v", u, err)
		}
	}
	if b, p, err := ParseURL("s3://bkt/a/b/"); err != nil || b != "bkt" || p != "a/b/" {
		t.Fatal(b, p, err)
	}
}

// TestHeadKeySpelling: a session's head folder holds no capital letter
// outside its escapes (names equal under case folding get two folders),
// the older spelling still parses, and a folder that spells no valid
// session name is not a head's.
func TestHeadKeySpelling(t *testing.T) {
	id := cas.Sum([]byte("x"))
	file := fmt.Sprintf("/%020d-%s.json", 7, id.String()[:32])
	for _, c := range []struct{ session, dir string }{
		{"foo", "heads/foo/"}, {"Foo", "heads/!foo/"}, {"FOO-Bar", "heads/!f!o!o-!bar/"},
		{"é", "heads/%C3%A9/"}, {"É", "heads/%C3%89/"}, {"a!b", "heads/a%21b/"}, {"..a", "heads/..a/"},
	} {
		if got := HeadsDir("", c.session); got != c.dir {
			t.Errorf("HeadsDir(%q) = %q, want %q", c.session, got, c.dir)
		}
		if s, n, _, ok := ParseHeadKey(c.dir[:len(c.dir)-1] + file); !ok || s != c.session || n != 7 {
			t.Errorf("ParseHeadKey(%q) = %q %v", c.dir, s, ok)
		}
	}
	if s, _, _, ok := ParseHeadKey("heads/Foo" + file); !ok || s != "Foo" {
		t.Errorf("older spelling: %q %v", s, ok)
	}
	if got := HeadsDirs("p/", "Foo"); len(got) != 2 || got[0] != "p/heads/!foo/" || got[1] != "p/heads/Foo/" {
		t.Errorf("HeadsDirs: %q", got)
	}
	for _, dir := range []string{"", ".", "..", "%2e%2e", "%2E", "a%5Cb", "a%2Fb", "a%00", "a%20b", "%FF", "!Foo", "!", "a!", "!1", "F!oo"} {
		if s, _, _, ok := ParseHeadKey("heads/" + dir + file); ok {
			t.Errorf("ParseHeadKey(heads/%s) = %q", dir, s)
		}
	}
	for _, bad := range []string{".", "..", `a\b`, ""} {
		if HeadsDir("", bad) != "" || HeadKey("p/", bad, 1, id) != "" || HeadsDirs("", bad) != nil {
			t.Errorf("a key for session %q", bad)
		}
	}
}

func TestVerifyRecord(t *testing.T) {
	data := bytes.Repeat([]byte("turnback "), 100)
	h := cas.Sum(data)
	raw := append([]byte{0}, data...)
	if got, err := VerifyRecord(h, raw); err != nil || !bytes.Equal(got, data) {
		t.Fatal(err)
	}
	raw[5] ^= 1
	if _, err := VerifyRecord(h, raw); !errors.Is(err, cas.ErrCorrupt) {
		t.Fatal(err)
	}
}
