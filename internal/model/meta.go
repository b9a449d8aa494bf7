package model

// Turn metadata: small string pairs a caller stores with a turn when it
// snaps (the root's SnapOptions.Meta, snap --meta KEY=VALUE, "meta" in the HTTP
// API), returned with the turn everywhere turns are (Turns, Show, the
// turns an undo or redo moved). An agent's server records, say, the
// index of the message the turn began at, so that after an undo it knows
// which messages to drop. turnback never interprets them.

import (
	"fmt"
	"maps"
	"strings"
	"unicode/utf8"
)

// Bounds of a turn's metadata.
const (
	// MaxMetaPairs bounds the pairs of one turn.
	MaxMetaPairs = 64
	// MaxMetaBytes bounds the bytes of every key and value of one turn.
	MaxMetaBytes = 4096
	// MaxMetaKey bounds one key.
	MaxMetaKey = 64
)

// CheckMeta checks a turn's metadata: at most MaxMetaPairs pairs and
// MaxMetaBytes of keys and values in all; each key 1 to MaxMetaKey
// bytes of ASCII letters, digits, '_', '-' and '.', starting with a
// letter or digit; each value valid UTF-8 without NUL. An error wraps
// ErrInvalidMeta.
func CheckMeta(m map[string]string) error {
	if len(m) > MaxMetaPairs {
		return fmt.Errorf("%w: %d pairs, at most %d", ErrInvalidMeta, len(m), MaxMetaPairs)
	}
	total := 0
	for k, v := range m {
		total += len(k) + len(v)
		if err := checkMetaKey(k); err != nil {
			return err
		}
		if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
			return fmt.Errorf("%w: the value of %s is not UTF-8 text without NUL", ErrInvalidMeta, k)
		}
	}
	if total > MaxMetaBytes {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrInvalidMeta, total, MaxMetaBytes)
	}
	return nil
}

func checkMetaKey(k string) error {
	if k == "" || len(k) > MaxMetaKey {
		return fmt.Errorf("%w: a key must be 1 to %d bytes, got %d", ErrInvalidMeta, MaxMetaKey, len(k))
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '_' && c != '-' && c != '.') {
			return fmt.Errorf("%w: key %q: letters, digits, '_', '-' and '.' only, starting with a letter or digit", ErrInvalidMeta, k)
		}
	}
	return nil
}

// ParseMeta reads KEY=VALUE pairs (snap --meta) into metadata and checks
// it (CheckMeta). A key given twice is an error.
func ParseMeta(pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return nil, fmt.Errorf("%w: %q is not KEY=VALUE", ErrInvalidMeta, p)
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("%w: key %q given twice", ErrInvalidMeta, k)
		}
		m[k] = v
	}
	if err := CheckMeta(m); err != nil {
		return nil, err
	}
	return m, nil
}

// CopyMeta returns a copy of m, nil when empty.
func CopyMeta(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}

// FirstLine is the message a turn keeps of message s: its first line,
// trimmed, at most 500 bytes.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if len(s) > 500 {
		s = s[:500]
	}
	return s
}
