package daemon

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/api"
)

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
		for _, v := range []any{&api.UndoRequest{}, &api.SnapRequest{}, &api.RestoreRequest{}, &api.GCRequest{}} {
			w := httptest.NewRecorder()
			r := httptest.NewRequest("POST", "/v1/x", strings.NewReader(body))
			err := decode(w, r, v)
			if err != nil {
				status, doc := apiErrorDoc(err)
				if status != 400 && status != 413 || doc.ExitCode != 2 {
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
