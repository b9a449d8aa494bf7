package turnback

// Turn metadata (package internal/model keeps the rules): small string
// pairs a caller stores with a turn when it snaps (SnapOptions.Meta),
// returned with the turn everywhere turns are. turnback never
// interprets them.

import "github.com/turnback/turnback/internal/model"

// Bounds of a turn's metadata.
const (
	// MaxMetaPairs bounds the pairs of one turn.
	MaxMetaPairs = model.MaxMetaPairs
	// MaxMetaBytes bounds the bytes of every key and value of one turn.
	MaxMetaBytes = model.MaxMetaBytes
	// MaxMetaKey bounds one key.
	MaxMetaKey = model.MaxMetaKey
)

// CheckMeta checks a turn's metadata: at most MaxMetaPairs pairs and
// MaxMetaBytes of keys and values in all; each key 1 to MaxMetaKey
// bytes of ASCII letters, digits, '_', '-' and '.', starting with a
// letter or digit; each value valid UTF-8 without NUL. An error wraps
// ErrInvalidMeta.
func CheckMeta(m map[string]string) error { return model.CheckMeta(m) }

// ParseMeta reads KEY=VALUE pairs (snap --meta) into metadata and checks
// it (CheckMeta). A key given twice is an error.
func ParseMeta(pairs []string) (map[string]string, error) { return model.ParseMeta(pairs) }

// copyMeta returns a copy of m, nil when empty.
func copyMeta(m map[string]string) map[string]string { return model.CopyMeta(m) }
