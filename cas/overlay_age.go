package cas

// How long records stay in the overlay log: a deferred writer folds the
// log into the database once it holds overlayMaxFrames frames or its
// first frame is older than overlayMaxAge, so that damage to the log
// can reach only a few recent commands (see "The overlay log" in
// doc.go).

import (
	"crypto/rand"
	"encoding/binary"
	"time"
)

// Bounds of the log's exposure. A fold costs about one write-mode open
// and close of Badger (tens of ms), paid by one command in
// overlayMaxFrames at most. Variables for tests.
var (
	overlayMaxFrames       = 32
	overlayMaxAge          = 10 * time.Minute
	overlayClock           = time.Now
	overlayFutureTolerance = time.Minute
)

// newLogID returns the id of a log created at now: the time in Unix
// nanoseconds (big-endian), then 8 random bytes. Only its equality
// matters to folds (foldedKey); the time says the log's age.
func newLogID(now time.Time) ([]byte, error) {
	id := make([]byte, overlayIDLen)
	binary.BigEndian.PutUint64(id, uint64(now.UnixNano()))
	if _, err := rand.Read(id[8:]); err != nil {
		return nil, err
	}
	return id, nil
}

// logBorn returns the creation time an id records. A log of an earlier
// turnback has a random id: its time makes no sense, and ok is false.
func logBorn(id []byte, now time.Time) (t time.Time, ok bool) {
	if len(id) != overlayIDLen {
		return time.Time{}, false
	}
	t = time.Unix(0, int64(binary.BigEndian.Uint64(id)))
	if t.After(now.Add(overlayFutureTolerance)) || t.Before(now.AddDate(-20, 0, 0)) {
		return time.Time{}, false
	}
	return t, true
}

// due reports whether the log should be folded now: it holds
// overlayMaxFrames frames, or its first is older than overlayMaxAge, or
// its age is unknown (a log of an earlier turnback, a clock set back).
func (o *overlayFile) due() bool {
	if o.size == 0 || o.id == nil {
		return false
	}
	if o.frames >= overlayMaxFrames {
		return true
	}
	now := overlayClock()
	born, ok := logBorn(o.id, now)
	return !ok || now.Sub(born) > overlayMaxAge
}
