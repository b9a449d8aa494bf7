package exchange

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// SessionSource is where Import takes a session from.
type SessionSource interface {
	// Records returns the session's records as the source holds them,
	// and where they came from (for errors).
	Records(ctx context.Context, session string) (recs []Record, from string, err error)
	// Fetch writes into content every tree, blob and chunk list the
	// states roots reach that content lacks, each verified against its
	// address, and returns once they are flushed.
	Fetch(ctx context.Context, content *cas.Store, roots []cas.Hash) error
}

// ImportResult is what Import did.
type ImportResult struct {
	// Kept: the store's session already held everything the source's
	// does; it was kept as it was and nothing was fetched.
	Kept bool
	// Turns: the session's turns now.
	Turns int
	// Last: the source session's newest state (zero for none).
	Last cas.Hash
}

// Import brings session (empty: the Repo's) from src into the
// store, holding the store throughout. It never forgets local state: a
// local session that holds everything the source's does is kept as it
// is (Kept), and one that changed since the two last matched, where the
// source's changed too, is model.ErrDiverged (see pullKeeps). Otherwise the
// content comes first (src.Fetch), made durable before the records
// that name it are written, so an import stopped part way leaves only
// unreferenced blobs. The work tree is not touched.
func Import(ctx context.Context, repo any, session string, src SessionSource) (*ImportResult, error) {
	st := Open(repo)
	if err := st.Lock(ctx); err != nil {
		return nil, err
	}
	defer st.Unlock()
	if st.ReadOnly() {
		return nil, model.ErrReadOnly
	}
	if session == "" {
		session = st.Session()
	}
	if err := validSession(session); err != nil {
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
	keep, err := pullKeeps(ctx, st, sess, turns)
	if err != nil {
		return nil, err
	}
	if keep {
		local, err := st.LoadSession(ctx, session)
		if err != nil {
			return nil, err
		}
		return &ImportResult{Kept: true, Turns: len(local.Turns)}, nil
	}
	if err := src.Fetch(ctx, st.Content(), roots); err != nil {
		return nil, err
	}
	if err := st.Records().Sync(); err != nil {
		return nil, err
	}
	res := &ImportResult{Turns: len(sess.Turns)}
	var writes []cas.Entry
	var deletes [][]byte
	for _, rec := range recs {
		k := []byte(rec.Key)
		if ok, err := st.Records().Has(ctx, k); err != nil {
			return nil, err
		} else if ok && (strings.HasPrefix(rec.Key, model.PrefixSnap) || strings.HasPrefix(rec.Key, model.PrefixCheckpoint)) {
			continue // the local record of a state stays as it is
		}
		v := rec.Value
		if strings.HasPrefix(rec.Key, model.PrefixSnap) {
			if v, err = markForeign(v); err != nil {
				return nil, fmt.Errorf("%w (%s: %s)", err, from, rec.Key)
			}
		}
		writes = append(writes, cas.Entry{Key: k, Value: v})
	}
	// A state the source sent no record of (a hostile remote) is
	// another machine's too: it gets a record that says so.
	for _, h := range roots {
		k := model.SnapKey(h)
		if slices.ContainsFunc(writes, func(e cas.Entry) bool { return string(e.Key) == string(k) }) {
			continue
		}
		if ok, err := st.Records().Has(ctx, k); err != nil {
			return nil, err
		} else if !ok {
			writes = append(writes, cas.Entry{Key: k, Value: []byte(`{"v":1,"kind":"snap","foreign":true}`)})
		}
	}
	err = st.Records().Scan(ctx, []byte(model.PrefixTurn+session+"/"), true, func(k, _ []byte) error {
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
	// (the root's pull_apply.go), so status, undo and redo know.
	if e, del, err := st.Pulled(ctx, sess); err != nil {
		return nil, err
	} else if del != nil {
		deletes = append(deletes, del)
	} else {
		writes = append(writes, *e)
	}
	if sess.Last != "" {
		res.Last, _ = cas.ParseHash(sess.Last)
		if cur, err := st.Latest(ctx); err != nil {
			return nil, err
		} else if cur.IsZero() {
			writes = append(writes, cas.Entry{Key: []byte(model.KeyLatest), Value: []byte(sess.Last)})
		}
	}
	if err := st.Commit(ctx, writes, deletes); err != nil {
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

// parseSessionRecords returns the session record, the turns and the
// states that session's records from elsewhere hold, as sessionRecords
// and the checkpoints do for a local session.
func parseSessionRecords(session string, recs []Record) (*model.SessionRecord, map[int]*model.Turn, []cas.Hash, error) {
	var sess *model.SessionRecord
	turns := map[int]*model.Turn{}
	live := map[cas.Hash]bool{}
	for _, rec := range recs {
		switch {
		case strings.HasPrefix(rec.Key, model.PrefixSess):
			sess = &model.SessionRecord{}
			if err := json.Unmarshal(rec.Value, sess); err != nil || sess.Name != session {
				return nil, nil, nil, fmt.Errorf("%w: remote session %s: bad session record", cas.ErrCorrupt, session)
			}
		case strings.HasPrefix(rec.Key, model.PrefixTurn):
			t := &model.Turn{}
			err := json.Unmarshal(rec.Value, t)
			if err == nil {
				t.Before, err = cas.ParseHash(t.BeforeID)
			}
			if err == nil && t.AfterID != "" {
				t.After, err = cas.ParseHash(t.AfterID)
			}
			if err != nil || t.Session != session || string(model.TurnKey(t.Session, t.N)) != rec.Key {
				return nil, nil, nil, fmt.Errorf("%w: remote session %s: bad turn record %s", cas.ErrCorrupt, session, rec.Key)
			}
			turns[t.N] = t
		case strings.HasPrefix(rec.Key, model.PrefixCheckpoint):
			id, _ := cas.ParseHash(strings.TrimPrefix(rec.Key, model.PrefixCheckpoint)) // the source checks it (s3.DecodeHead)
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

// markForeign is a snapshot record another machine wrote, marked as
// such ("foreign"): its state's owners are that machine's, which a
// restore as root must not give the folder (the root's
// pull_owners.go). An undo's partial state (model.SnapshotRecord's
// Partial and Paths) vouched for that machine's folder: here, as the
// remote's state, it is whole. The record's other fields stay as they
// are.
func markForeign(v []byte) ([]byte, error) {
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(v, &rec); err != nil || rec == nil {
		return nil, fmt.Errorf("%w: snapshot record is not a JSON object", cas.ErrCorrupt)
	}
	rec["foreign"] = json.RawMessage("true")
	delete(rec, "partial")
	delete(rec, "paths")
	return json.Marshal(rec)
}
