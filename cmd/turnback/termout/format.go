package termout

import (
	"encoding/json"
	"fmt"
	"io"
)

// HumanBytes is a byte count for people: "512 B", "1.5 MiB".
func HumanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// Plural is "s" unless n is 1.
func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// ShortID is a full hex id as ids are shown to people: 12 digits.
func ShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// WriteJSON writes v as one indented JSON document, HTML characters as
// they are. A value that cannot be encoded writes nothing.
func WriteJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// Failure reports a command's error: msg on stderr, made safe for a
// terminal (error messages name paths and quote what the user typed),
// then the CLI's own hint as it is (it may begin a new line), with the
// way to usage help when usage is set; with json also one document on
// stdout: doc (nil: an empty one) with "error" (msg and hint) and
// "exit_code".
func Failure(stdout, stderr io.Writer, msg, hint string, code int, doc map[string]any, json, usage bool) {
	if json {
		if doc == nil {
			doc = map[string]any{}
		}
		doc["error"], doc["exit_code"] = msg+hint, code
		WriteJSON(stdout, doc)
	}
	fmt.Fprintln(stderr, SafeText(msg)+hint)
	if usage {
		fmt.Fprintln(stderr, "Run 'turnback --help' for usage.")
	}
}

// NonNil is s, or an empty slice for nil (a JSON [] instead of null).
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
