package turnback

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/turnback/turnback/cas"
)

// Exchange: what a copy of a session kept elsewhere needs of the store.
// The S3 remote (internal/remote) is its user. The root package keeps
// what the records mean: which records a session owns, which states
// they hold, and how two copies of one session compare (pull_merge.go).
// The remote moves the records and the content they reach.

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

// ExportSessions reads the records of the sessions names (none: the
// Repo's session; all: every session of the store), holding the store
// only meanwhile. A name the session rule refuses wraps ErrBadSession
// (it cannot name a copy elsewhere); one the store lacks, ErrNoSession.
func (r *Repo) ExportSessions(ctx context.Context, names []string, all bool) ([]SessionExport, error) {
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	if all {
		list, err := r.sessions(ctx)
		if err != nil {
			return nil, err
		}
		names = nil
		for _, s := range list {
			names = append(names, s.Name)
		}
	} else if len(names) == 0 {
		names = []string{r.session}
	}
	var out []SessionExport
	for _, name := range names {
		// A name the rule refuses (a store from before it) would make
		// a key outside its session's folder elsewhere.
		if err := ValidSession(name); err != nil {
			return nil, err
		}
		recs, roots, err := r.sessionRecords(ctx, name)
		if err != nil {
			return nil, err
		}
		out = append(out, SessionExport{Name: name, Records: recs, Roots: roots})
	}
	return out, nil
}

// Content returns the store's content (blobs, chunk lists and trees),
// for a push to read what ExportSessions' states reach. Reading needs
// no hold on the store: only GC removes content. Records outside
// package cas's keys are the Repo's: use ImportSession to write them.
func (r *Repo) Content() *cas.Store { return r.store }

// SessionSource is where ImportSession takes a session from.
type SessionSource interface {
	// Records returns the session's records as the source holds them,
	// and where they came from (for errors).
	Records(ctx context.Context, session string) (recs []Record, from string, err error)
	// Fetch writes into content every tree, blob and chunk list the
	// states roots reach that content lacks, each verified against its
	// address, and returns once they are flushed.
	Fetch(ctx context.Context, content *cas.Store, roots []cas.Hash) error
}

// ImportResult is what ImportSession did.
type ImportResult struct {
	// Kept: the store's session already held everything the source's
	// does; it was kept as it was and nothing was fetched.
	Kept bool
	// Turns: the session's turns now.
	Turns int
	// Last: the source session's newest state (zero for none).
	Last cas.Hash
}

// ImportSession brings session (empty: the Repo's) from src into the
// store, holding the store throughout. It never forgets local state: a
// local session that holds everything the source's does is kept as it
// is (Kept), and one that changed since the two last matched, where the
// source's changed too, is ErrDiverged (see pullKeeps). Otherwise the
// content comes first (src.Fetch), made durable before the records
// that name it are written, so an import stopped part way leaves only
// unreferenced blobs. The work tree is not touched.
func (r *Repo) ImportSession(ctx context.Context, session string, src SessionSource) (*ImportResult, error) {
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	if r.readOnly {
		return nil, ErrReadOnly
	}
	if session == "" {
		session = r.session
	}
	if err := ValidSession(session); err != nil {
		return nil, err
	}
	recs, from, err := src.Records(ctx, session)
	if err != nil {
		return nil, err
	}
	sess, turns, roots, err := parseSessionRecords(session, recs)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, from)
	}
	keep, err := r.pullKeeps(ctx, sess, turns)
	if err != nil {
		return nil, err
	}
	if keep {
		local, err := r.loadSession(ctx, session)
		if err != nil {
			return nil, err
		}
		return &ImportResult{Kept: true, Turns: len(local.Turns)}, nil
	}
	if err := src.Fetch(ctx, r.store, roots); err != nil {
		return nil, err
	}
	if err := r.backend.Sync(); err != nil {
		return nil, err
	}
	res := &ImportResult{Turns: len(sess.Turns)}
	var writes []cas.Entry
	var deletes [][]byte
	for _, rec := range recs {
		k := []byte(rec.Key)
		if ok, err := r.backend.Has(ctx, k); err != nil {
			return nil, err
		} else if ok && (strings.HasPrefix(rec.Key, prefixSnap) || strings.HasPrefix(rec.Key, prefixCheckpoint)) {
			continue // the local record of a state stays as it is
		}
		writes = append(writes, cas.Entry{Key: k, Value: rec.Value})
	}
	err = r.backend.Scan(ctx, []byte(prefixTurn+session+"/"), true, func(k, _ []byte) error {
		for _, rec := range recs {
			if rec.Key == string(k) {
				return nil
			}
		}
		deletes = append(deletes, append([]byte(nil), k...))
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The folder stays as it was: what it lacks is recorded
	// (pull_apply.go), so status, undo and redo know.
	if e, del, err := r.pulledEntry(ctx, sess); err != nil {
		return nil, err
	} else if del {
		deletes = append(deletes, []byte(prefixPulled+session))
	} else {
		writes = append(writes, e)
	}
	if sess.Last != "" {
		res.Last, _ = cas.ParseHash(sess.Last)
		if cur, err := r.latest(ctx); err != nil {
			return nil, err
		} else if cur.IsZero() {
			writes = append(writes, cas.Entry{Key: []byte(keyLatest), Value: []byte(sess.Last)})
		}
	}
	if err := r.commit(ctx, writes, deletes); err != nil {
		return nil, err
	}
	return res, nil
}

// RecordRoots checks session's records as ExportSessions makes them
// and returns the states they hold. A record that does not decode, or
// a turn the session names that is missing, wraps cas.ErrCorrupt.
func RecordRoots(session string, recs []Record) ([]cas.Hash, error) {
	_, _, roots, err := parseSessionRecords(session, recs)
	return roots, err
}

// keyRemote holds the store's remote configuration (JSON, defined by
// internal/remote).
const keyRemote = "m/remote"

// RemoteConfig returns the store's remote configuration as
// SetRemoteConfig recorded it, or ok false when there is none.
func (r *Repo) RemoteConfig(ctx context.Context) (cfg json.RawMessage, ok bool, err error) {
	ok, err = r.getJSON(ctx, []byte(keyRemote), &cfg)
	return cfg, ok, err
}

// SetRemoteConfig records the store's remote configuration, a JSON
// document the store keeps and does not read.
func (r *Repo) SetRemoteConfig(ctx context.Context, cfg json.RawMessage) error {
	if err := r.lock(ctx); err != nil {
		return err
	}
	defer r.unlock()
	if r.readOnly {
		return ErrReadOnly
	}
	return r.commit(ctx, []cas.Entry{{Key: []byte(keyRemote), Value: cfg}}, nil)
}

// sessionRecords returns the records of session name that a copy
// elsewhere carries (session, turns, the snapshot records of its
// states, its checkpoints) and the states they hold (roots).
func (r *Repo) sessionRecords(ctx context.Context, name string) ([]Record, []cas.Hash, error) {
	var recs []Record
	add := func(k, v []byte) {
		recs = append(recs, Record{Key: string(k), Value: json.RawMessage(append([]byte(nil), v...))})
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

// parseSessionRecords returns the session record, the turns and the
// states that session's records from elsewhere hold, as sessionRecords
// and the checkpoints do for a local session.
func parseSessionRecords(session string, recs []Record) (*sessionRecord, map[int]*Turn, []cas.Hash, error) {
	var sess *sessionRecord
	turns := map[int]*Turn{}
	live := map[cas.Hash]bool{}
	for _, rec := range recs {
		switch {
		case strings.HasPrefix(rec.Key, prefixSess):
			sess = &sessionRecord{}
			if err := json.Unmarshal(rec.Value, sess); err != nil || sess.Name != session {
				return nil, nil, nil, fmt.Errorf("%w: remote session %s: bad session record", cas.ErrCorrupt, session)
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
			if err != nil || t.Session != session || string(turnKey(t.Session, t.N)) != rec.Key {
				return nil, nil, nil, fmt.Errorf("%w: remote session %s: bad turn record %s", cas.ErrCorrupt, session, rec.Key)
			}
			turns[t.N] = t
		case strings.HasPrefix(rec.Key, prefixCheckpoint):
			id, _ := cas.ParseHash(strings.TrimPrefix(rec.Key, prefixCheckpoint)) // the source checks it (s3.DecodeHead)
			live[id] = true
		}
	}
	if sess == nil {
		return nil, nil, nil, fmt.Errorf("%w: remote session %s: no session record", cas.ErrCorrupt, session)
	}
	if sess.Last != "" {
		id, err := cas.ParseHash(sess.Last)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%w: remote session %s: %v", cas.ErrCorrupt, session, err)
		}
		live[id] = true
	}
	nums := append([]int(nil), sess.Turns...)
	for _, g := range sess.Redo {
		nums = append(nums, g.Turns...)
		for _, s := range []string{g.Checkpoint, g.Expected} {
			id, err := cas.ParseHash(s)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("%w: remote session %s redo: %v", cas.ErrCorrupt, session, err)
			}
			live[id] = true
		}
	}
	for _, n := range nums {
		t, ok := turns[n]
		if !ok {
			return nil, nil, nil, fmt.Errorf("%w: remote session %s: turn %d is missing", cas.ErrCorrupt, session, n)
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
