package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/internal/exchange"
	"github.com/turnback/turnback/manifest"
)

// Sentinel errors of the remote.
var (
	// ErrNoRemote: the store has no remote configured.
	ErrNoRemote = errors.New("turnback: no remote configured")
	// ErrRemoteSession: the remote has no head for the session.
	ErrRemoteSession = errors.New("turnback: the remote has no such session")
	// ErrNotEmpty: clone's folder is not empty, or its store exists.
	ErrNotEmpty = errors.New("turnback: not empty")
	// ErrRemoteHead: remote gc found an object among the heads it cannot
	// read; it deleted nothing.
	ErrRemoteHead = errors.New("turnback: the remote has a head that cannot be read")
)

// Set records cfg as r's store's remote. Credentials are in it only
// when the user gave them as flags; otherwise the caller takes them from
// the environment at each use.
func Set(ctx context.Context, r *turnback.Repo, cfg s3.Config) error {
	if _, _, err := s3.ParseURL(cfg.URL); err != nil {
		return err
	}
	return exchange.SetRemoteConfig(ctx, r, encodeJSON(cfg))
}

// Config returns r's store's remote, or ErrNoRemote.
func Config(ctx context.Context, r *turnback.Repo) (s3.Config, error) {
	var cfg s3.Config
	data, ok, err := exchange.RemoteConfig(ctx, r)
	if err != nil {
		return cfg, err
	}
	if !ok {
		return cfg, ErrNoRemote
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return cfg, fmt.Errorf("%w: record m/remote: %v", cas.ErrCorrupt, err) // as the store words it
	}
	return cfg, nil
}

// encodeJSON marshals v, a plain struct that cannot fail to marshal.
func encodeJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		return []byte("{}")
	}
	return data
}

// records converts a head's records to the root package's.
func records(recs []s3.Record) []exchange.Record {
	out := make([]exchange.Record, len(recs))
	for i, r := range recs {
		out[i] = exchange.Record(r)
	}
	return out
}

// remoteIndex is what a remote holds: every record of the packs whose
// index was read, by address.
type remoteIndex struct {
	mu    sync.Mutex
	locs  map[cas.Hash]remoteLoc
	packs map[cas.Hash][]s3.Entry // each pack's entries, in offset order
}

type remoteLoc struct {
	pack cas.Hash
	e    s3.Entry
}

// loadIndexes reads the indexes of packs (in parallel) into a new
// remoteIndex.
func loadIndexes(ctx context.Context, c *s3.Client, packs []cas.Hash) (*remoteIndex, error) {
	ix := &remoteIndex{locs: map[cas.Hash]remoteLoc{}, packs: map[cas.Hash][]s3.Entry{}}
	err := forEach(ctx, 8, packs, func(ctx context.Context, id cas.Hash) error {
		key := s3.IndexKey(c.Prefix, id)
		data, err := c.Get(ctx, key, 64<<20)
		if err != nil {
			return err
		}
		_, entries, err := s3.DecodeIndex(data)
		if err != nil {
			return fmt.Errorf("%w (s3://%s/%s)", err, c.Bucket, key)
		}
		ix.mu.Lock()
		defer ix.mu.Unlock()
		ix.packs[id] = entries
		for _, e := range entries {
			if _, ok := ix.locs[e.Hash]; !ok {
				ix.locs[e.Hash] = remoteLoc{id, e}
			}
		}
		return nil
	})
	return ix, err
}

// treeChildren lists what tree t needs besides itself: its subtrees and
// the content of its captured files (the empty content excepted).
func treeChildren(t *manifest.Tree) (dirs, files []cas.Hash) {
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Uncaptured || e.Hash.IsZero() {
			continue
		}
		switch e.Kind {
		case manifest.KindDir:
			if e.Hash != manifest.EmptyTreeHash() {
				dirs = append(dirs, e.Hash)
			}
		case manifest.KindFile:
			if e.Hash != cas.EmptyHash {
				files = append(files, e.Hash)
			}
		}
	}
	return dirs, files
}

// forEach runs fn on every item, at most limit at once, and returns the
// first error (the others are cancelled).
func forEach[T any](ctx context.Context, limit int, items []T, fn func(context.Context, T) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(limit)
	for _, it := range items {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error { return fn(gctx, it) })
	}
	return g.Wait()
}

// listRemote returns the packs of the remote that have an index (whole
// packs), every pack id seen (with or without an index, with its
// object times), and the packs on gc pending lists.
func listRemote(ctx context.Context, c *s3.Client) (whole []cas.Hash, objs map[cas.Hash][]s3.Object, pending map[cas.Hash]time.Time, err error) {
	list, err := c.List(ctx, "packs/")
	if err != nil {
		return nil, nil, nil, err
	}
	objs = map[cas.Hash][]s3.Object{}
	hasPack, hasIdx := map[cas.Hash]bool{}, map[cas.Hash]bool{}
	for _, o := range list {
		id, isIdx, ok := s3.ParsePackKey(o.Key)
		if !ok {
			continue
		}
		objs[id] = append(objs[id], o)
		if isIdx {
			hasIdx[id] = true
		} else {
			hasPack[id] = true
		}
	}
	for id := range hasIdx {
		if hasPack[id] {
			whole = append(whole, id)
		}
	}
	sort.Slice(whole, func(i, j int) bool { return whole[i].String() < whole[j].String() })
	pending, err = readPending(ctx, c)
	return whole, objs, pending, err
}

// readPending returns the packs of every gc pending list, with the time
// of the oldest list naming each.
func readPending(ctx context.Context, c *s3.Client) (map[cas.Hash]time.Time, error) {
	lists, err := c.List(ctx, "gc/")
	if err != nil {
		return nil, err
	}
	out := map[cas.Hash]time.Time{}
	for _, o := range lists {
		data, err := c.Get(ctx, c.Prefix+o.Key, 64<<20)
		if errors.Is(err, s3.ErrNotFound) {
			continue // a gc removed it meanwhile
		}
		if err != nil {
			return nil, err
		}
		p, err := s3.DecodePending(data)
		if err != nil {
			return nil, fmt.Errorf("%w (s3://%s/%s%s)", err, c.Bucket, c.Prefix, o.Key)
		}
		for _, s := range p.Packs {
			id, _ := cas.ParseHash(s)
			if t, ok := out[id]; !ok || o.Modified.Before(t) {
				out[id] = o.Modified
			}
		}
	}
	return out, nil
}
