package turnback

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/restore"
)

// The records' keys, types and encoding are in internal/model
// (records.go); here are the reads and writes that need the Repo.

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

func (r *Repo) loadSession(ctx context.Context, name string) (*model.SessionRecord, error) {
	s := &model.SessionRecord{Version: model.MetaVersion, Name: name, NextTurn: 1}
	if _, err := r.getJSON(ctx, []byte(model.PrefixSess+name), s); err != nil {
		return nil, err
	}
	return s, nil
}

func (r *Repo) loadTurn(ctx context.Context, session string, n int) (*Turn, error) {
	t := &Turn{}
	ok, err := r.getJSON(ctx, model.TurnKey(session, n), t)
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

// latest returns the newest recorded snapshot of the work tree (any
// session), or zero.
func (r *Repo) latest(ctx context.Context) (cas.Hash, error) {
	data, err := r.backend.Get(ctx, []byte(model.KeyLatest))
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
	err = r.backend.Scan(ctx, []byte(model.PrefixSnap+id), true, func(k, _ []byte) error {
		found = append(found, strings.TrimPrefix(string(k), model.PrefixSnap))
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

// checkpointEntry records checkpoint cp as made now by this Repo's
// session. Recording the same state again moves it later in history,
// which only keeps it longer.
func (r *Repo) checkpointEntry(ctx context.Context, cp cas.Hash, op string, actions []restore.Action) (cas.Entry, error) {
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return cas.Entry{}, err
	}
	rec := model.CheckpointRecord{Version: model.MetaVersion, Time: time.Now().UTC(), Session: r.session, Turn: sess.NextTurn - 1, Command: op}
	for _, a := range actions {
		rec.AddPath(a.Path)
	}
	return model.CheckpointEntry(cp, rec), nil
}

// checkpoints returns every checkpoint record.
func (r *Repo) checkpoints(ctx context.Context) ([]Checkpoint, error) {
	var out []Checkpoint
	err := r.backend.Scan(ctx, []byte(model.PrefixCheckpoint), false, func(k, v []byte) error {
		c, err := model.DecodeCheckpoint(k, v)
		if err != nil {
			return err
		}
		out = append(out, c)
		return nil
	})
	return out, err
}
