package turnback

import (
	"context"

	"github.com/turnback/turnback/cas"
)

// database is what a Repo needs of its store's database: a cas.Backend,
// and what only the durable backend does. cas.OpenBadger returns one;
// the Badger behind it stays package cas's (see docs/design.md, cas).
type database interface {
	cas.Backend
	// Upgrade opens for writing a database opened deferred (see
	// cas.BadgerOptions.Deferred), for work that records much.
	Upgrade() error
	// Reserve makes the writes so far durable and readies the database
	// to commit n bytes of records after work that must not fail half
	// way; Release ends that (cas.Badger.Reserve).
	Reserve(n int64) error
	Release()
	// Reclaim makes the database give disk space back after gc
	// deleted keys.
	Reclaim(ctx context.Context) error
	// LogDamage returns the damage a read-only open found in the write
	// log (a *cas.LogDamageError), or nil.
	LogDamage() error
	// Salvaged returns what a salvaging open did with a damaged write
	// log, or nil when it found none.
	Salvaged() *cas.LogSalvage
}
