package sessname

import (
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// MaxLen is the longest valid name, in bytes.
const MaxLen = 200

// ErrInvalid is wrapped by every error Check returns.
var ErrInvalid = errors.New("invalid session name")

// Check returns nil for a valid name, else an error wrapping ErrInvalid
// that says what is wrong (the name quoted).
func Check(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty", ErrInvalid)
	case len(name) > MaxLen:
		return fmt.Errorf("%w: %d bytes, at most %d", ErrInvalid, len(name), MaxLen)
	case !utf8.ValidString(name):
		return fmt.Errorf("%w %q: not UTF-8", ErrInvalid, name)
	case name == "." || name == "..":
		return fmt.Errorf("%w %q: \".\" and \"..\" are not names", ErrInvalid, name)
	}
	for _, r := range name {
		if !ValidRune(r) {
			return fmt.Errorf("%w %q: no spaces, slashes, backslashes or control characters", ErrInvalid, name)
		}
	}
	return nil
}

// ValidRune reports whether r may appear in a name: a printable
// character other than space, '/' and '\'.
func ValidRune(r rune) bool {
	return r > ' ' && r != '/' && r != '\\' && r != utf8.RuneError && unicode.IsPrint(r)
}
