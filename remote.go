package turnback

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/manifest"
)

// Remote: a bucket and prefix on an S3-compatible object store that
// stores push sessions to and pull them from (package cas/s3 has the
// layout). remote*.go, push.go, pull.go and clone.go hold it; a store
// with no remote configured works exactly as before.

// Sentinel errors of the remote.
var (
	// ErrNoRemote: the store has no remote configured.
	ErrNoRemote = errors.New("turnback: no remote configured")
	// ErrRemoteSession: the remote has no head for the session.
	ErrRemoteSession = errors.New("turnback: the remote has no such session")
	// ErrDiverged: the local session and the remote's both changed
	// since they last matched (or number different turns alike): a pull
	// would lose local state, so it changed nothing (see pullKeeps).
	ErrDiverged = errors.New("turnback: the local session and the remote's have diverged")
	// ErrNoSession: push was asked for a session the store does not have.
	ErrNoSession = errors.New("turnback: no such session")
	// ErrNotEmpty: clone's folder is not empty, or its store exists.
	ErrNotEmpty = errors.New("turnback: not empty")
	// ErrRemoteHead: remote gc found an object among the heads it cannot
	// read; it deleted nothing.
	ErrRemoteHead = errors.New("turnback: the remote has a head that cannot be read")
)

// keyRemote holds the store's remote configuration (an s3.Config as
// JSON). Credentials are in it only when the user gave them as flags;
// otherwise the caller takes them from the environment at each use.
const keyRemote = "m/remote"

// SetRemote records the store's remote.
func (r *Repo) SetRemote(ctx context.Context, cfg s3.Config) error {
	if _, _, err := s3.ParseURL(cfg.URL); err != nil {
		return err
	}
	if err := r.lock(ctx); err != nil {
		return err
	}
	defer r.unlock()
	if r.readOnly {
		return ErrReadOnly
	}
	return r.commit(ctx, []cas.Entry{{Key: []byte(keyRemote), Value: encodeJSON(cfg)}}, nil)
}

// Remote returns the store's remote, or ErrNoRemote.
func (r *Repo) Remote(ctx context.Context) (s3.Config, error) {
	var cfg s3.Config
	ok, err := r.getJSON(ctx, []byte(keyRemote), &cfg)
	if err != nil {
		return cfg, err
	}
	if !ok {
		return cfg, ErrNoRemote
	}
	return cfg, nil
}

// sessionRecords returns the records of session name that a head
// carries (session, turns, the snapshot records of its states, its
// checkpoints) and the states they hold (roots).
func (r *Repo) sessionRecords(ctx context.Context, name string) ([]s3.Record, []cas.Hash, error) {
	var recs []s3.Record
	add := func(k, v []byte) {
		recs = append(recs, s3.Record{Key: string(k), Value: json.RawMessage(append([]byte(nil), v...))})
	}
	data, err := r.backend.Get(ctx, []byte(prefixSess+name))
	if errors.Is(err, cas.ErrNotFound) {
		return nil, nil, fmt.Errorf("%w: %s", ErrNoSession, name)
	}
	if err != nil {
		return nil, nil, err
	}
	add([]byte(prefixSess+name), data)
	if err := r.backend.Scan(ctx, []byte(prefixTurn+name+"/"), false, func(k, v []byte) error {
		add(k, v)
		return nil
	}); err != nil {
		return nil, nil, err
	}
	sess, err := r.loadSession(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	// The states in history order (turns oldest first, then the redo
	// stack, the checkpoints, the last state): stores that share a
	// history walk it in the same order and so fill the same packs.
	var roots []cas.Hash
	seen := map[cas.Hash]bool{}
	addRoot := func(h cas.Hash) error {
		if seen[h] {
			return nil
		}
		seen[h] = true
		roots = append(roots, h)
		v, err := r.backend.Get(ctx, snapKey(h))
		if errors.Is(err, cas.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		add(snapKey(h), v)
		return nil
	}
	var ids []cas.Hash
	nums := append([]int(nil), sess.Turns...)
	for _, g := range sess.Redo {
		nums = append(nums, g.Turns...)
	}
	for _, n := range nums {
		t, err := r.loadTurn(ctx, name, n)
		if err != nil {
			return nil, nil, err
		}
		ids = append(ids, t.Before)
		if !t.Open() {
			ids = append(ids, t.After)
		}
	}
	for _, g := range sess.Redo {
		for _, id := range []string{g.Checkpoint, g.Expected} {
			h, err := cas.ParseHash(id)
			if err != nil {
				return nil, nil, fmt.Errorf("%w: session %s redo: %v", cas.ErrCorrupt, name, err)
			}
			ids = append(ids, h)
		}
	}
	cps, err := r.checkpoints(ctx)
	if err != nil {
		return nil, nil, err
	}
	sort.Slice(cps, func(i, j int) bool { return cps[i].Time.Before(cps[j].Time) })
	for _, c := range cps {
		if c.Session != name {
			continue
		}
		h, _ := cas.ParseHash(c.ID)
		ids = append(ids, h)
		v, err := r.backend.Get(ctx, checkpointKey(h))
		if err != nil {
			return nil, nil, err
		}
		add(checkpointKey(h), v)
	}
	if sess.Last != "" {
		h, err := cas.ParseHash(sess.Last)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: session %s: %v", cas.ErrCorrupt, name, err)
		}
		ids = append(ids, h)
	}
	for _, h := range ids {
		if err := addRoot(h); err != nil {
			return nil, nil, err
		}
	}
	return recs, roots, nil
}

// headRoots returns the states a head's records hold, as sessionRoots
// and the checkpoints do for a local session.
func headRoots(h *s3.Head) (*sessionRecord, map[int]*Turn, []cas.Hash, error) {
	var sess *sessionRecord
	turns := map[int]*Turn{}
	live := map[cas.Hash]bool{}
	for _, rec := range h.Records {
		switch {
		case strings.HasPrefix(rec.Key, prefixSess):
			sess = &sessionRecord{}
			if err := json.Unmarshal(rec.Value, sess); err != nil || sess.Name != h.Session {
				return nil, nil, nil, fmt.Errorf("%w: remote session %s: bad session record", cas.ErrCorrupt, h.Session)
			}
		case strings.HasPrefix(rec.Key, prefixTurn):
			t := &Turn{}
			err := json.Unmarshal(rec.Value, t)
			if err == nil {
				t.Before, err = cas.ParseHash(t.BeforeID)
			}
			if err == nil && t.AfterID != "" {
				t.After, err = cas.ParseHash(t.AfterID)
			}
			if err != nil || t.Session != h.Session || string(turnKey(t.Session, t.N)) != rec.Key {
				return nil, nil, nil, fmt.Errorf("%w: remote session %s: bad turn record %s", cas.ErrCorrupt, h.Session, rec.Key)
			}
			turns[t.N] = t
		case strings.HasPrefix(rec.Key, prefixCheckpoint):
			id, _ := cas.ParseHash(strings.TrimPrefix(rec.Key, prefixCheckpoint)) // checked by DecodeHead
			live[id] = true
		}
	}
	if sess == nil {
		return nil, nil, nil, fmt.Errorf("%w: remote session %s: no session record", cas.ErrCorrupt, h.Session)
	}
	if sess.Last != "" {
		id, err := cas.ParseHash(sess.Last)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%w: remote session %s: %v", cas.ErrCorrupt, h.Session, err)
		}
		live[id] = true
	}
	nums := append([]int(nil), sess.Turns...)
	for _, g := range sess.Redo {
		nums = append(nums, g.Turns...)
		for _, s := range []string{g.Checkpoint, g.Expected} {
			id, err := cas.ParseHash(s)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("%w: remote session %s redo: %v", cas.ErrCorrupt, h.Session, err)
			}
			live[id] = true
		}
	}
	for _, n := range nums {
		t, ok := turns[n]
		if !ok {
			return nil, nil, nil, fmt.Errorf("%w: remote session %s: turn %d is missing", cas.ErrCorrupt, h.Session, n)
		}
		live[t.Before] = true
		if !t.Open() {
			live[t.After] = true
		}
	}
	var roots []cas.Hash
	for id := range live {
		roots = append(roots, id)
	}
	return sess, turns, roots, nil
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
