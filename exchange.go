package turnback

// Exchange: a copy of a session kept elsewhere (the S3 remote). Package
// internal/exchange keeps which records a session owns, how two copies
// compare and how one is brought in; this file gives it the store
// (exchange.Open) and the one record of the folder's state a pull
// leaves (pull_apply.go).

import (
	"context"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/exchange"
	"github.com/turnback/turnback/internal/model"
)

func init() { exchange.Open = func(repo any) exchange.Store { return exchangeStore{repo.(*Repo)} } }

// Content returns the store's content (blobs, chunk lists and trees),
// for a push to read what a session's states reach. Reading needs no
// hold on the store: only GC removes content.
func (r *Repo) Content() *cas.Store { return r.store }

// exchangeStore is exchange.Store: r's store, held by r's lock.
type exchangeStore struct{ r *Repo }

func (s exchangeStore) Lock(ctx context.Context) error { return s.r.lock(ctx) }
func (s exchangeStore) Unlock()                        { s.r.unlock() }
func (s exchangeStore) ReadOnly() bool                 { return s.r.readOnly }
func (s exchangeStore) Session() string                { return s.r.session }
func (s exchangeStore) Records() cas.Backend           { return s.r.backend }
func (s exchangeStore) Content() *cas.Store            { return s.r.store }

func (s exchangeStore) Commit(ctx context.Context, writes []cas.Entry, deletes [][]byte) error {
	return s.r.commit(ctx, writes, deletes)
}

func (s exchangeStore) Sessions(ctx context.Context) ([]*model.SessionRecord, error) {
	return s.r.sessions(ctx)
}

func (s exchangeStore) LoadSession(ctx context.Context, name string) (*model.SessionRecord, error) {
	return s.r.loadSession(ctx, name)
}

func (s exchangeStore) LoadTurn(ctx context.Context, session string, n int) (*Turn, error) {
	return s.r.loadTurn(ctx, session, n)
}

func (s exchangeStore) Checkpoints(ctx context.Context) ([]Checkpoint, error) {
	return s.r.checkpoints(ctx)
}

func (s exchangeStore) Latest(ctx context.Context) (cas.Hash, error) { return s.r.latest(ctx) }

func (s exchangeStore) Pulled(ctx context.Context, remote *model.SessionRecord) (*cas.Entry, []byte, error) {
	e, del, err := s.r.pulledEntry(ctx, remote)
	if err != nil || del {
		return nil, []byte(model.PrefixPulled + remote.Name), err
	}
	return &e, nil, nil
}

// sessionTurns returns the numbers of s's turns: done, then undone.
func sessionTurns(s *model.SessionRecord) []int { return s.AllTurns() }
