package daemon

// A request body's value of the wrong JSON type, said in JSON's words:
// encoding/json's message names Go types and fields
// ("cannot unmarshal string into Go struct field UndoRequest.count of
// type int"), which mean nothing to a client in another language.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// typeMismatch describes te, an error decoding into v (a pointer to the
// request's struct): the field by its JSON name, the JSON type wanted
// and the value given.
func typeMismatch(v any, te *json.UnmarshalTypeError) string {
	got := jsonValue(te.Value)
	if te.Field == "" {
		return "want " + jsonType(reflect.TypeOf(v).Elem()) + ", got " + got
	}
	ft := fieldType(reflect.TypeOf(v).Elem(), te.Field)
	if ft == nil {
		ft = te.Type
	}
	msg := fmt.Sprintf("field %q: want %s, got %s", te.Field, jsonType(ft), got)
	if k := ft.Kind(); ft != te.Type && (k == reflect.Slice || k == reflect.Map) {
		msg += " in it" // an item or value of it
	}
	return msg
}

// fieldType is the type of the field at path (JSON names joined by
// dots) in struct t, nil if there is none.
func fieldType(t reflect.Type, path string) reflect.Type {
	for _, name := range strings.Split(path, ".") {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil
		}
		var found reflect.Type
		for i := range t.NumField() {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tag == name || tag == "" && f.Name == name {
				found = f.Type
				break
			}
		}
		if found == nil {
			return nil
		}
		t = found
	}
	return t
}

// jsonType names the JSON values t is decoded from.
func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return jsonType(t.Elem())
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array of " + plural(t.Elem())
	case reflect.Map:
		return "an object of " + plural(t.Elem())
	}
	return "an object"
}

// plural names the items of an array or object of t.
func plural(t reflect.Type) string {
	switch s := jsonType(t); {
	case s == "true or false":
		return "true or false values"
	case strings.HasPrefix(s, "an "):
		return "arrays or objects"
	default:
		return strings.TrimPrefix(s, "a ") + "s" // "a string": "strings"
	}
}

// jsonValue names the JSON value encoding/json found (its
// UnmarshalTypeError.Value: "string", "number", "number 1.5", ...).
func jsonValue(v string) string {
	switch v {
	case "string", "number", "object", "array":
		return map[bool]string{true: "an ", false: "a "}[v[0] == 'o' || v[0] == 'a'] + v
	case "bool":
		return "true or false"
	}
	if n, ok := strings.CutPrefix(v, "number "); ok {
		return n
	}
	return v
}
