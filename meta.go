package turnback

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/turnback/turnback/cas"
)

// Metadata keys. Records are small JSON documents written in one
// transaction per command, after every blob and tree they refer to is
// flushed, so a crash leaves at most unreferenced blobs behind.
const (
	keyLatest   = "m/latest" // hex id of the newest recorded snapshot, any session
	prefixSnap  = "m/snap/"  // + hex id -> snapshotRecord
	prefixSess  = "m/sess/"  // + session name -> sessionRecord
	prefixTurn  = "m/turn/"  // + session + "/" + %012d -> Turn
	turnNumFmt  = "%012d"
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
}

// sessionRecord is one session's stacks.
type sessionRecord struct {
	Version  int    `json:"v"`
	Name     string `json:"name"`
	NextTurn int    `json:"next_turn"`
	// Turns is the undo stack, oldest first; the last one may be open.
	Turns []int `json:"turns"`
	// Redo holds the undos that can be redone, the most recent last.
	Redo []undoGroup `json:"redo,omitempty"`
	// Last is the newest state the session recorded (snap, end, undo,
	// redo), what status and diff compare with.
	Last string `json:"last,omitempty"`
	// Forgotten is the highest turn number retention has forgotten
	// (0: none); checkpoints made before it go with those turns.
	Forgotten int `json:"forgotten,omitempty"`
}

// Turn is what an agent did between a snap and its end.
type Turn struct {
	Version  int       `json:"v"`
	Session  string    `json:"session"`
	N        int       `json:"turn"`
	Message  string    `json:"message,omitempty"`
	Before   cas.Hash  `json:"-"`
	After    cas.Hash  `json:"-"`
	BeforeID string    `json:"before"`
	AfterID  string    `json:"after,omitempty"`
	Started  time.Time `json:"started"`
	Ended    time.Time `json:"ended,omitzero"`
	// ClosedBy says what closed the turn: "end", "snap" or "undo"; empty
	// while the turn is open.
	ClosedBy string `json:"closed_by,omitempty"`
	Added    int    `json:"added"`
	Modified int    `json:"modified"`
	Deleted  int    `json:"deleted"`
}

// Open reports whether the turn has no after-state yet.
func (t *Turn) Open() bool { return t.ClosedBy == "" }

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
	return cas.Entry{Key: []byte(prefixSess + s.Name), Value: encodeJSON(s)}
}

// Kinds of snapshot record.
const (
	kindSnap       = "snap"
	kindCheckpoint = "checkpoint"
	kindResult     = "result"
)

func snapshotEntry(h cas.Hash, kind string, files, bytes int64) cas.Entry {
	return cas.Entry{Key: snapKey(h), Value: encodeJSON(snapshotRecord{Version: metaVersion, Kind: kind, Time: time.Now().UTC(), Files: files, Bytes: bytes})}
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

// ErrUnknownID: no snapshot matches the id given.
var ErrUnknownID = errors.New("turnback: unknown snapshot id")

// ErrAmbiguousID: more than one snapshot matches the id prefix given.
var ErrAmbiguousID = errors.New("turnback: ambiguous snapshot id")

// resolve turns a unique hex prefix into a snapshot id.
func (r *Repo) resolve(ctx context.Context, id string) (cas.Hash, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" || len(id) > 2*cas.HashSize || strings.Trim(id, "0123456789abcdef") != "" {
		return cas.Hash{}, fmt.Errorf("%w: %q is not a hex id", ErrUnknownID, id)
	}
	var found []string
	err := r.backend.Scan(ctx, []byte(prefixSnap+id), true, func(k, _ []byte) error {
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
