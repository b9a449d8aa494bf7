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
// accepts is one document of the request type, with no key twice in
// any object and only the fields' exact names at the top.
func FuzzAPIRequest(f *testing.F) {
	for _, s := range []string{`{"count":2}`, `{"count":"2"}`, `{"message":"m","meta":{"k":"v"}}`, `{`, `{} {}`, `[]`, `null`, ``,
		`{"paths":["a"],"dry_run":true}`, `{"cuont":1}`, "{\"message\":\"\xff\"}",
		`{"dry_run":true,"dry_run":false}`, `{"dry_run":true,"DRY_RUN":false}`, `{"Count":1}`, `{"meta":{"k":"a","k":"b"}}`,
		`{"meta":{"k":"a","K":"b"}}`, `{"paths":[{"a":1,"a":2}]}`, `{"dry_run":true,"dry\u005frun":false}`} {
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
			trimmed := bytes.TrimSpace([]byte(body))
			if len(trimmed) > 0 && trimmed[0] != '{' && string(trimmed) != "null" {
				t.Fatalf("decode accepted %q into %T: not an object", body, v)
			}
			if len(trimmed) > 0 && !keysOK(trimmed, fieldNames(v)) {
				t.Fatalf("decode accepted %q into %T: a key twice, or not a field's exact name", body, v)
			}
		}
	})
}

// keysOK reports whether no object in the JSON document raw has a key
// twice and, if top is not nil, every key of the top-level object is in
// top (recursive, unlike the server's check).
func keysOK(raw []byte, top map[string]bool) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return true
	}
	seen := map[string]bool{}
	for dec.More() {
		if tok == json.Delim('{') {
			k, err := dec.Token()
			if err != nil || seen[k.(string)] || top != nil && !top[k.(string)] {
				return false
			}
			seen[k.(string)] = true
		}
		var val json.RawMessage
		if dec.Decode(&val) != nil || !keysOK(val, nil) {
			return false
		}
	}
	return true
}

// fieldNames are the json names of the fields of the struct v points to.
func fieldNames(v any) map[string]bool {
	out := map[string]bool{}
	t := reflect.TypeOf(v).Elem()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out[name] = true
	}
	return out
}
