package daemon

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/api"
)

// TestTypeMismatch: a body value of the wrong JSON type is said in
// JSON's words, with the field's JSON name, for every request type's
// kinds of fields; never a Go type or field name.
func TestTypeMismatch(t *testing.T) {
	for _, tc := range []struct {
		v          any
		body, want string
	}{
		{&api.UndoRequest{}, `{"count":"2"}`, `field "count": want a whole number, got a string`},
		{&api.UndoRequest{}, `{"count":true}`, `field "count": want a whole number, got true or false`},
		{&api.UndoRequest{}, `{"count":{}}`, `field "count": want a whole number, got an object`},
		{&api.UndoRequest{}, `{"count":1e400}`, `field "count": want a whole number, got 1e400`},
		{&api.UndoRequest{}, `{"paths":[[]]}`, `field "paths": want an array of strings, got an array in it`},
		{&api.UndoRequest{}, `{"merge":1}`, `field "merge": want a string, got a number`},
		{&api.SnapRequest{}, `{"take_notice":"yes"}`, `field "take_notice": want true or false, got a string`},
		{&api.SnapRequest{}, `{"meta":"k=v"}`, `field "meta": want an object of strings, got a string`},
		{&api.GCRequest{}, `{"keep":-0.5}`, `field "keep": want a whole number, got -0.5`},
		{&api.RestoreRequest{}, `{"id":7}`, `field "id": want a string, got a number`},
		{&api.RestoreRequest{}, `7`, `want an object, got a number`},
	} {
		err := json.Unmarshal([]byte(tc.body), tc.v)
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			t.Fatalf("%s: %v is no type error", tc.body, err)
		}
		got := typeMismatch(tc.v, te)
		if got != tc.want {
			t.Errorf("%s into %T:\n got %s\nwant %s", tc.body, tc.v, got, tc.want)
		}
		if strings.Contains(got, "Request") || strings.Contains(got, " int") || strings.Contains(got, "[]") {
			t.Errorf("%s: a Go name in %q", tc.body, got)
		}
	}
}
