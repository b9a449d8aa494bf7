package turnback

import (
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// SetSnapRecords replaces the value of every snapshot record of r's
// store with v, as a hostile remote's store may hold.
func SetSnapRecords(t *testing.T, r *Repo, v string) {
	t.Helper()
	ctx := t.Context()
	var writes []cas.Entry
	err := r.backend.Scan(ctx, []byte(model.PrefixSnap), true, func(k, _ []byte) error {
		writes = append(writes, cas.Entry{Key: append([]byte(nil), k...), Value: []byte(v)})
		return nil
	})
	if err == nil {
		err = r.commit(ctx, writes, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
}
