package turnback

import (
	"testing"

	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/internal/pathstate"
	"github.com/turnback/turnback/internal/umask"
)

// DropSnapRecords deletes every snapshot record of r's store, as a
// hostile remote's store may lack them.
func DropSnapRecords(t *testing.T, r *Repo) {
	t.Helper()
	ctx := t.Context()
	var keys [][]byte
	err := r.backend.Scan(ctx, []byte(model.PrefixSnap), true, func(k, _ []byte) error {
		keys = append(keys, append([]byte(nil), k...))
		return nil
	})
	if err == nil {
		err = r.commit(ctx, nil, keys)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// SetForeignUmask makes restores of pulled states mask modes as if the
// process umask were m, until t ends. Not for parallel tests.
func SetForeignUmask(t *testing.T, m uint32) {
	old := pathstate.ForeignUmask
	pathstate.ForeignUmask = umask.Pulled(m)
	t.Cleanup(func() { pathstate.ForeignUmask = old })
}

// ReadForeignUmask reads the process umask again, as at start: for a
// TestMain that sets it.
func ReadForeignUmask() { pathstate.ForeignUmask = umask.Pulled(umask.Read()) }
