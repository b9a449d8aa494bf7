package turnback

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseMeta: ParseMeta never panics; what it accepts CheckMeta
// accepts, holds every pair given, and survives a JSON round trip (the
// turn record) unchanged.
func FuzzParseMeta(f *testing.F) {
	for _, s := range []string{"message_index=12", "a=1\nb=2", "k=v=w", "=x", "a b=1", "k=\x00", "k=\xff", "k.1-2_3=é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pairs := strings.Split(s, "\n")
		m, err := ParseMeta(pairs)
		if err != nil {
			if !errors.Is(err, ErrInvalidMeta) {
				t.Fatalf("%q: %v does not wrap ErrInvalidMeta", s, err)
			}
			return
		}
		if err := CheckMeta(m); err != nil {
			t.Fatalf("%q: accepted, then refused: %v", s, err)
		}
		if len(m) != len(pairs) {
			t.Fatalf("%q: %d pairs, %d kept", s, len(pairs), len(m))
		}
		for _, p := range pairs {
			k, v, _ := strings.Cut(p, "=")
			if m[k] != v {
				t.Fatalf("%q: %s is %q", s, k, m[k])
			}
		}
		var back Turn
		if err := json.Unmarshal(encodeJSON(&Turn{Meta: m}), &back); err != nil || !reflect.DeepEqual(back.Meta, m) {
			t.Fatalf("%q: round trip %v %v", s, back.Meta, err)
		}
	})
}

// FuzzAPIRequest: the API's request decoding never panics, refuses with
// a 400 or 413 (never a 500) what it does not accept, and what it
// accepts is one document of the request type.
func FuzzAPIRequest(f *testing.F) {
	for _, s := range []string{`{"count":2}`, `{"count":"2"}`, `{"message":"m","meta":{"k":"v"}}`, `{`, `{} {}`, `[]`, `null`, ``,
		`{"paths":["a"],"dry_run":true}`, `{"cuont":1}`, "{\"message\":\"\xff\"}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, v := range []any{&UndoRequest{}, &SnapRequest{}, &RestoreRequest{}, &GCRequest{}} {
			w := httptest.NewRecorder()
			r := httptest.NewRequest("POST", "/v1/x", strings.NewReader(body))
			err := decode(w, r, v)
			if err != nil {
				status, doc := apiErrorDoc(err)
				if status != 400 && status != 413 || doc.Code != 2 {
					t.Fatalf("%q into %T: %d %+v", body, v, status, doc)
				}
				continue
			}
			if trimmed := bytes.TrimSpace([]byte(body)); len(trimmed) > 0 && trimmed[0] != '{' && string(trimmed) != "null" {
				t.Fatalf("decode accepted %q into %T: not an object", body, v)
			}
		}
	})
}
