package turnback

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/restore"
)

// Metadata keys. Records are small JSON documents written in one
// transaction per command, after every blob and tree they refer to is
// flushed, so a crash leaves at most unreferenced blobs behind.
const (
	keyLatest   = model.KeyLatest  // hex id of the newest recorded snapshot, any session
	prefixSnap  = model.PrefixSnap // + hex id -> snapshotRecord
	prefixSess  = model.PrefixSess // + session name -> sessionRecord
	prefixTurn  = model.PrefixTurn // + session + "/" + %012d -> Turn
	turnNumFmt  = model.TurnNumFmt
	metaVersion = 1
)

// snapshotRecord registers a snapshot so ids can be listed, resolved by
// prefix and kept by gc.
type snapshotRecord struct {
	Version int       `json:"v"`
	Kind    string    `json:"kind"` // "snap" (snap, end) or "checkpoint" / "result" (undo, redo, restore)
	Time    time.Time `json:"time"`
	Files   int64     `json:"files"`
	Bytes   int64     `json:"bytes"`
	// Rules is skipRules for a snapshot whose capture judged directories
	// by evidence; then Generated lists the directories it skipped for
	// what they held (walker.Ignored of rule "evidence"). 0: recorded
	// before, or for a state whose skips are unknown.
	Rules     int      `json:"rules,omitempty"`
	Generated []string `json:"generated,omitempty"`
	// Foreign: a pull brought the state, which another machine
	// captured; its owners are that machine's (pull_owners.go).
	Foreign bool `json:"foreign,omitempty"`
}

// sessionRecord is one session's stacks (model.SessionRecord).
type sessionRecord = model.SessionRecord

// maxRevs bounds sessionRecord.Revs.
const maxRevs = 32

func turnKey(session string, n int) []byte {
	return []byte(prefixTurn + session + "/" + fmt.Sprintf(turnNumFmt, n))
}

func snapKey(h cas.Hash) []byte { return []byte(prefixSnap + h.String()) }

func encodeJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		// Only plain structs are marshalled here; this cannot fail.
		return []byte("{}")
	}
	return data
}

func (r *Repo) getJSON(ctx context.Context, key []byte, v any) (bool, error) {
	data, err := r.backend.Get(ctx, key)
	if errors.Is(err, cas.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("%w: record %s: %v", cas.ErrCorrupt, key, err)
	}
	return true, nil
}

func (r *Repo) loadSession(ctx context.Context, name string) (*sessionRecord, error) {
	s := &sessionRecord{Version: metaVersion, Name: name, NextTurn: 1}
	if _, err := r.getJSON(ctx, []byte(prefixSess+name), s); err != nil {
		return nil, err
	}
	return s, nil
}

func (r *Repo) loadTurn(ctx context.Context, session string, n int) (*Turn, error) {
	t := &Turn{}
	ok, err := r.getJSON(ctx, turnKey(session, n), t)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: session %s: turn %d is missing", cas.ErrCorrupt, session, n)
	}
	if t.Before, err = cas.ParseHash(t.BeforeID); err != nil {
		return nil, fmt.Errorf("%w: turn %d: %v", cas.ErrCorrupt, n, err)
	}
	if t.AfterID != "" {
		if t.After, err = cas.ParseHash(t.AfterID); err != nil {
			return nil, fmt.Errorf("%w: turn %d: %v", cas.ErrCorrupt, n, err)
		}
	}
	return t, nil
}

func turnEntry(t *Turn) cas.Entry {
	t.Version = metaVersion
	t.BeforeID = t.Before.String()
	t.AfterID = ""
	if !t.Open() {
		t.AfterID = t.After.String()
	}
	return cas.Entry{Key: turnKey(t.Session, t.N), Value: encodeJSON(t)}
}

func sessionEntry(s *sessionRecord) cas.Entry {
	s.Version = metaVersion
	if s.Rev != "" {
		s.Revs = append(s.Revs, s.Rev)
		if len(s.Revs) > maxRevs {
			s.Revs = append([]string(nil), s.Revs[len(s.Revs)-maxRevs:]...)
		}
	}
	s.Rev = rand.Text()[:16]
	return cas.Entry{Key: []byte(prefixSess + s.Name), Value: encodeJSON(s)}
}

// Kinds of snapshot record.
const (
	kindSnap       = "snap"
	kindCheckpoint = "checkpoint"
	kindResult     = "result"
)

// snapshotEntry is the record of snapshot h; skip says what its capture
// skipped for what it held (nil: unknown).
func snapshotEntry(h cas.Hash, kind string, files, bytes int64, skip *skipInfo) cas.Entry {
	rec := snapshotRecord{Version: metaVersion, Kind: kind, Time: time.Now().UTC(), Files: files, Bytes: bytes}
	if skip != nil {
		rec.Rules, rec.Generated = skipRules, skip.generated
	}
	return cas.Entry{Key: snapKey(h), Value: encodeJSON(rec)}
}

// latest returns the newest recorded snapshot of the work tree (any
// session), or zero.
func (r *Repo) latest(ctx context.Context) (cas.Hash, error) {
	data, err := r.backend.Get(ctx, []byte(keyLatest))
	if errors.Is(err, cas.ErrNotFound) {
		return cas.Hash{}, nil
	}
	if err != nil {
		return cas.Hash{}, err
	}
	h, err := cas.ParseHash(string(data))
	if err != nil {
		return cas.Hash{}, fmt.Errorf("%w: latest snapshot: %v", cas.ErrCorrupt, err)
	}
	return h, nil
}

// lockResolve takes the store (see lock) and resolves id (see resolve);
// on success the caller holds the store and must unlock it.
func (r *Repo) lockResolve(ctx context.Context, id string) (cas.Hash, error) {
	if err := r.lock(ctx); err != nil {
		return cas.Hash{}, err
	}
	h, err := r.resolve(ctx, id)
	if err != nil {
		r.unlock()
		return cas.Hash{}, err
	}
	return h, nil
}

// resolve turns a unique hex prefix (MinIDPrefix digits or more) or a
// turn reference of the Repo's session (see TurnRef) into a snapshot id.
func (r *Repo) resolve(ctx context.Context, arg string) (cas.Hash, error) {
	if ref, ok, err := ParseTurnRef(arg); err != nil {
		return cas.Hash{}, err
	} else if ok {
		return r.turnState(ctx, ref)
	}
	id, err := parseID(arg)
	if err != nil {
		return cas.Hash{}, err
	}
	var found []string
	err = r.backend.Scan(ctx, []byte(prefixSnap+id), true, func(k, _ []byte) error {
		found = append(found, strings.TrimPrefix(string(k), prefixSnap))
		if len(found) > 5 {
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return cas.Hash{}, err
	}
	switch len(found) {
	case 0:
		return cas.Hash{}, fmt.Errorf("%w: %s", ErrUnknownID, id)
	case 1:
		return cas.ParseHash(found[0])
	}
	return cas.Hash{}, fmt.Errorf("%w: %s matches %s, ...", ErrAmbiguousID, id, strings.Join(found[:2], ", "))
}

var errStop = errors.New("stop")

// Checkpoints are the states undo, redo and restore replaced, printed to
// the user as the way back ("turnback restore <checkpoint>"). Each one
// gets a record under prefixCheckpoint saying when it was made and where
// it sits in its session's history: after turn Turn (the session's newest
// turn number at that moment, undone or not), before turn Turn+1.
//
// Retention treats a checkpoint like the turns around it: gc drops it only
// once retention has forgotten the turn after it (a turn numbered above
// Turn; sessionRecord.Forgotten remembers the highest turn retention ever
// forgot), or when it is older than the age limit, exactly as turns older
// than the limit go. The newest checkpoint of the store is kept regardless,
// as the newest turn is.
const prefixCheckpoint = model.PrefixCheckpoint // + hex id -> checkpointRecord

// checkpointRecord is one checkpoint's place in history.
type checkpointRecord struct {
	Version int       `json:"v"`
	Time    time.Time `json:"time"`
	Session string    `json:"session"`
	// Turn is the session's newest turn number when the checkpoint was
	// made (0: the session had no turn yet).
	Turn int `json:"turn"`
	// Command says what made it ("undo turn 3", "redo turn 3", "restore
	// 1a2b3c4d5e6f"); Paths are the paths the command changed, whose
	// earlier content the checkpoint holds (at most checkpointPaths,
	// More counts the rest). Empty in records made before them.
	Command string   `json:"command,omitempty"`
	Paths   []string `json:"paths,omitempty"`
	More    int      `json:"more,omitempty"`
}

// checkpointPaths is how many paths a checkpoint record names.
const checkpointPaths = 50

func checkpointKey(h cas.Hash) []byte { return []byte(prefixCheckpoint + h.String()) }

// checkpointEntry records checkpoint cp as made now by this Repo's
// session. Recording the same state again moves it later in history,
// which only keeps it longer.
func (r *Repo) checkpointEntry(ctx context.Context, cp cas.Hash, op string, actions []restore.Action) (cas.Entry, error) {
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return cas.Entry{}, err
	}
	rec := checkpointRecord{Version: metaVersion, Time: time.Now().UTC(), Session: r.session, Turn: sess.NextTurn - 1, Command: op}
	for _, a := range actions {
		if len(rec.Paths) == checkpointPaths {
			rec.More++
			continue
		}
		rec.Paths = append(rec.Paths, a.Path)
	}
	return cas.Entry{Key: checkpointKey(cp), Value: encodeJSON(rec)}, nil
}

// checkpoints returns every checkpoint record.
func (r *Repo) checkpoints(ctx context.Context) ([]Checkpoint, error) {
	var out []Checkpoint
	err := r.backend.Scan(ctx, []byte(prefixCheckpoint), false, func(k, v []byte) error {
		id := strings.TrimPrefix(string(k), prefixCheckpoint)
		if _, err := cas.ParseHash(id); err != nil {
			return fmt.Errorf("%w: checkpoint key %q", cas.ErrCorrupt, k)
		}
		var rec checkpointRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return fmt.Errorf("%w: checkpoint %s: %v", cas.ErrCorrupt, id, err)
		}
		out = append(out, Checkpoint{ID: id, Time: rec.Time, Session: rec.Session, Turn: rec.Turn,
			Command: rec.Command, Paths: append([]string{}, rec.Paths...), More: rec.More})
		return nil
	})
	return out, err
}

// opName is what a checkpoint record says made it: verb and the turns
// ("undo turns 2, 3").
func opName(verb string, turns []int) string {
	s := make([]string, len(turns))
	for i, n := range turns {
		s[i] = strconv.Itoa(n)
	}
	if len(turns) == 1 {
		return verb + " turn " + s[0]
	}
	return verb + " turns " + strings.Join(s, ", ")
}

// keepCheckpoint applies retention to one checkpoint: forgotten is the
// highest turn number retention has forgotten in its session.
func keepCheckpoint(c Checkpoint, forgotten int, o GCOptions, now time.Time) bool {
	if c.Turn < forgotten {
		return false // the turn after it is gone
	}
	return o.OlderThan < 0 || now.Sub(c.Time) <= o.OlderThan
}
