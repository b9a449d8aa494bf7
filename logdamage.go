package turnback

// A damaged write log (the store's overlay log, see cas.LogDamageError):
// readers show what checks out and say so, writers refuse, and an open
// with Options.Salvage keeps what checks out and moves the log aside.

import (
	"context"
	"errors"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/walker"
)

// LogDamage returns the damage found in the store's write log when it was
// opened read-only (a *cas.LogDamageError, wrapping cas.ErrDamaged), or
// nil. Every record the log holds outside the damaged bytes is shown.
func (r *Repo) LogDamage() error {
	if r.backend == nil { // none on a served Repo
		return nil
	}
	return r.backend.LogDamage()
}

// Salvaged returns what an open with Options.Salvage did with a damaged
// write log, or nil when it found none.
func (r *Repo) Salvaged() *cas.LogSalvage {
	if r.backend == nil { // none on a served Repo
		return nil
	}
	return r.backend.Salvaged()
}

func isLogDamage(err error) bool {
	var d *cas.LogDamageError
	return errors.As(err, &d)
}

// afterSalvage: once a damaged log was salvaged, the records of the
// damaged frames are gone, and the stat cache (records of later frames
// among them) may vouch for content or trees they held: it goes, so that
// the next capture reads every file again and stores what is missing.
func afterSalvage(ctx context.Context, b database) error {
	if b.Salvaged() == nil {
		return nil
	}
	if err := walker.NewStatCache(b).Drop(ctx); err != nil {
		return err
	}
	return b.Sync()
}

// recapture captures the work tree into a store that lost records (its
// stat cache dropped, so every file is read), which stores again the
// content and trees the folder still holds. No turn is recorded.
func (r *Repo) recapture(ctx context.Context) error {
	if err := r.lock(ctx); err != nil {
		return err
	}
	defer r.unlock()
	_, err := r.capture(ctx)
	return err
}
