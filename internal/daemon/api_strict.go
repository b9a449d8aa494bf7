package daemon

// A request body's keys, checked after it decoded (decode): encoding/json
// keeps the last of two equal keys and matches field names in any case,
// so {"dry_run":true,"DRY_RUN":false} would be a real run.

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// strictKeys refuses a key given twice in any object of data (one
// well-formed JSON document) and, in its top-level object, a key that
// is not exactly the json name of a field of the struct v points to.
func strictKeys(data []byte, v any) error {
	fields := jsonFields(v)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// One frame per open object or array: an object's keys so far, and
	// whether its next token is a key.
	type frame struct {
		keys    map[string]bool
		wantKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end (decode reported any syntax error)
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				continue
			}
			k, _ := tok.(string)
			if top.keys[k] {
				return badRequest{"malformed JSON: " + quoteKey(k) + " is given twice"}
			}
			top.keys[k] = true
			if len(stack) == 1 && fields != nil && !fields[k] {
				return badRequest{"malformed JSON: unknown field " + quoteKey(k)}
			}
			top.wantKey = false
			continue
		}
		if top != nil && top.keys != nil {
			top.wantKey = true // after this value, the next key
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
	}
}

// jsonFields returns the json names of the fields of the struct v
// points to (nil if it is not one).
func jsonFields(v any) map[string]bool {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil
	}
	t = t.Elem()
	out := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = true
	}
	return out
}

// quoteKey quotes a key for an error message, cut at 64 bytes.
func quoteKey(k string) string {
	if len(k) > 64 {
		k = k[:64] + "..."
	}
	data, _ := json.Marshal(k)
	return string(data)
}
