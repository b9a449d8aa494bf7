package cas

// A damaged overlay log: what a reader keeps, what a writer refuses,
// and the salvage that keeps every frame that checks out (see "The
// overlay log" in doc.go).

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// LogRange is a byte range of the overlay log that did not check out.
type LogRange struct {
	Offset int64  `json:"offset"`
	Length int64  `json:"length"`
	Why    string `json:"why"`
}

// LogDamageError reports a damaged overlay log: ranges of bytes that
// are neither whole frames nor the torn end of an append. It wraps
// ErrDamaged. Readers still see every frame that checks out (Frames of
// them); writers refuse until a salvage (BadgerOptions.Salvage, which
// "turnback verify --repair" uses) keeps those and moves the log aside.
type LogDamageError struct {
	Path    string     // the log
	Damaged []LogRange // in file order
	Frames  int        // frames that check out, before and after the damage
}

func (e *LogDamageError) Error() string {
	return fmt.Sprintf("%v: %s; %d frames check out; run 'turnback verify --repair' to keep them and move the damaged log aside",
		ErrDamaged, e.what(), e.Frames)
}

// what names the log and its first damage.
func (e *LogDamageError) what() string {
	d := e.Damaged[0]
	more := ""
	if len(e.Damaged) > 1 {
		more = fmt.Sprintf(" (and %d more damaged ranges)", len(e.Damaged)-1)
	}
	return fmt.Sprintf("write log %s: %s at byte %d (%d bytes)%s", e.Path, d.Why, d.Offset, d.Length, more)
}

func (e *LogDamageError) Unwrap() error { return ErrDamaged }

// LogSalvage reports a salvage of a damaged overlay log.
type LogSalvage struct {
	Damage  string     `json:"damage"`   // what was found
	MovedTo string     `json:"moved_to"` // the damaged log, kept whole
	Frames  int        `json:"frames"`   // frames that checked out, folded into the database
	Damaged []LogRange `json:"damaged"`  // what could not be read
	// Recapture: set by the caller when storing the folder again, to
	// recover content the lost frames held, failed (why).
	Recapture string `json:"recapture_error,omitempty"`
}

// LogDamage returns the damage a read-only open found in the store's
// overlay log (a *LogDamageError), or nil. The store then shows every
// frame that checks out, and nothing of the damaged ranges.
func (b *Badger) LogDamage() error {
	if b.logDamage == nil {
		return nil
	}
	return b.logDamage
}

// Salvaged returns what an open with BadgerOptions.Salvage did with a
// damaged overlay log, or nil when it found none.
func (b *Badger) Salvaged() *LogSalvage { return b.salvaged }

// asideName is where a damaged log is kept: beside it, named for the
// time of the salvage.
func asideName(dir string, now time.Time) string {
	return filepath.Join(dir, overlayName+".damaged-"+now.UTC().Format("20060102T150405.000000000Z"))
}

// keepAside links the damaged log of dir to a name of its own and syncs
// the directory, before anything is folded: whatever happens next, its
// bytes stay on disk. It returns the new name.
func keepAside(dir string) (string, error) {
	path := filepath.Join(dir, overlayName)
	aside := asideName(dir, time.Now())
	if err := os.Link(path, aside); err != nil {
		// Where hard links fail, a copy.
		data, rerr := os.ReadFile(path)
		if rerr != nil {
			return "", fmt.Errorf("cas: keep damaged %s: %w", path, err)
		}
		if werr := writeSynced(aside, data); werr != nil {
			return "", fmt.Errorf("cas: keep damaged %s: %w", path, werr)
		}
	}
	if err := syncDir(dir); err != nil {
		return "", fmt.Errorf("cas: keep damaged %s: %w", path, err)
	}
	return aside, nil
}

func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// asLogDamage returns err's *LogDamageError, if any.
func asLogDamage(err error) *LogDamageError {
	var d *LogDamageError
	if errors.As(err, &d) {
		return d
	}
	return nil
}
