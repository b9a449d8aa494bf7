package exchange

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// Record is one store record a session carries elsewhere: its key and
// its JSON value.
type Record struct {
	Key   string
	Value json.RawMessage
}

// SessionExport is one session as a push sends it.
type SessionExport struct {
	Name string
	// Records: the session's record, its turns, the snapshot records of
	// its states and its checkpoints.
	Records []Record
	// Roots: the states the records hold, in history order (turns oldest
	// first, the redo stack, the checkpoints, the last state), so
	// stores that share a history walk it in the same order.
	Roots []cas.Hash
}

// Export reads the records of the sessions names (none: the
// Repo's session; all: every session of the store), holding the store
// only meanwhile. A name the session rule refuses wraps ErrBadSession
// (it cannot name a copy elsewhere); one the store lacks, model.ErrNoSession.
func Export(ctx context.Context, repo any, names []string, all bool) ([]SessionExport, error) {
	st := Open(repo)
	if err := st.Lock(ctx); err != nil {
		return nil, err
	}
	defer st.Unlock()
	if all {
		list, err := st.Sessions(ctx)
		if err != nil {
			return nil, err
		}
		names = nil
		for _, s := range list {
			names = append(names, s.Name)
		}
	} else if len(names) == 0 {
		names = []string{st.Session()}
	}
	var out []SessionExport
	for _, name := range names {
		// A name the rule refuses (a store from before it) would make
		// a key outside its session's folder elsewhere.
		if err := validSession(name); err != nil {
			return nil, err
		}
		recs, roots, err := sessionRecords(ctx, st, name)
		if err != nil {
			return nil, err
		}
		out = append(out, SessionExport{Name: name, Records: recs, Roots: roots})
	}
	return out, nil
}

// keyRemote holds the store's remote configuration (JSON, defined by
// internal/remote).
const keyRemote = "m/remote"

// RemoteConfig returns repo's remote configuration as
// SetRemoteConfig recorded it, or ok false when there is none.
func RemoteConfig(ctx context.Context, repo any) (cfg json.RawMessage, ok bool, err error) {
	data, err := Open(repo).Records().Get(ctx, []byte(keyRemote))
	if errors.Is(err, cas.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, false, fmt.Errorf("%w: record %s: %v", cas.ErrCorrupt, keyRemote, err)
	}
	return cfg, true, nil
}

// SetRemoteConfig records repo's remote configuration, a JSON
// document the store keeps and does not read.
func SetRemoteConfig(ctx context.Context, repo any, cfg json.RawMessage) error {
	st := Open(repo)
	if err := st.Lock(ctx); err != nil {
		return err
	}
	defer st.Unlock()
	if st.ReadOnly() {
		return model.ErrReadOnly
	}
	return st.Commit(ctx, []cas.Entry{{Key: []byte(keyRemote), Value: cfg}}, nil)
}

// sessionRecords returns the records of session name that a copy
// elsewhere carries (session, turns, the snapshot records of its
// states, its checkpoints) and the states they hold (roots).
func sessionRecords(ctx context.Context, st Store, name string) ([]Record, []cas.Hash, error) {
	var recs []Record
	add := func(k, v []byte) {
		recs = append(recs, Record{Key: string(k), Value: json.RawMessage(append([]byte(nil), v...))})
	}
	data, err := st.Records().Get(ctx, []byte(model.PrefixSess+name))
	if errors.Is(err, cas.ErrNotFound) {
		return nil, nil, fmt.Errorf("%w: %s", model.ErrNoSession, name)
	}
	if err != nil {
		return nil, nil, err
	}
	add([]byte(model.PrefixSess+name), data)
	if err := st.Records().Scan(ctx, []byte(model.PrefixTurn+name+"/"), false, func(k, v []byte) error {
		add(k, v)
		return nil
	}); err != nil {
		return nil, nil, err
	}
	sess, err := st.LoadSession(ctx, name)
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
		v, err := st.Records().Get(ctx, model.SnapKey(h))
		if errors.Is(err, cas.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		add(model.SnapKey(h), v)
		return nil
	}
	var ids []cas.Hash
	nums := append([]int(nil), sess.Turns...)
	for _, g := range sess.Redo {
		nums = append(nums, g.Turns...)
	}
	for _, n := range nums {
		t, err := st.LoadTurn(ctx, name, n)
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
	cps, err := st.Checkpoints(ctx)
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
		v, err := st.Records().Get(ctx, model.CheckpointKey(h))
		if err != nil {
			return nil, nil, err
		}
		add(model.CheckpointKey(h), v)
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
