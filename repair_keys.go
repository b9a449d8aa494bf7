package turnback

// verify --repair's repair of a damaged record key: a snapshot or
// checkpoint record whose key no longer names a state (a byte of it
// changed on the disk). verify and gc refuse such a store.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// KeyRepair is one record whose key was damaged, and what verify
// --repair did with it.
type KeyRepair struct {
	Key string `json:"key"` // the damaged key, quoted as Go does
	// State is the state whose record it was: the one state the store
	// refers to that lacks such a record and whose key the damaged one
	// matches but for at most keyMatchBytes bytes. Empty when none or
	// several do.
	State string `json:"state,omitempty"`
	// Turns names the turns whose before or after state State is.
	Turns []string `json:"turns,omitempty"`
	// Restored: the record is stored again under State's key. Else it
	// was dropped, and what it said of its state is lost.
	Restored bool `json:"restored"`
}

// keyMatchBytes bounds the bytes a damaged key may differ in from the
// key it is taken for.
const keyMatchBytes = 4

// repairKeys finds the snapshot and checkpoint records whose keys do not
// parse, stores each again under the one key it matches (see
// KeyRepair.State), and deletes it.
func (r *Repo) repairKeys(ctx context.Context) ([]KeyRepair, error) {
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	type bad struct{ key, val []byte }
	damaged := map[string][]bad{}
	have := map[string]map[cas.Hash]bool{}
	for _, p := range []string{model.PrefixSnap, model.PrefixCheckpoint} {
		have[p] = map[cas.Hash]bool{}
		err := r.backend.Scan(ctx, []byte(p), false, func(k, v []byte) error {
			h, err := cas.ParseHash(string(k[len(p):]))
			if err != nil {
				damaged[p] = append(damaged[p], bad{bytes.Clone(k), bytes.Clone(v)})
			} else {
				have[p][h] = true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if len(damaged) == 0 {
		return nil, nil
	}
	refs, err := r.stateRefs(ctx)
	if err != nil {
		return nil, err
	}
	var out []KeyRepair
	var writes []cas.Entry
	var deletes [][]byte
	for _, p := range []string{model.PrefixSnap, model.PrefixCheckpoint} {
		// The states that should have a record under p and have none.
		var want []cas.Hash
		if p == model.PrefixSnap {
			for h := range refs {
				if !have[p][h] {
					want = append(want, h)
				}
			}
		} else {
			want = r.checkpointStates(ctx, have[model.PrefixSnap], have[p])
		}
		for _, d := range damaged[p] {
			kr := KeyRepair{Key: fmt.Sprintf("%q", d.key)}
			deletes = append(deletes, d.key)
			if h, ok := matchKey(d.key, p, want); ok && validRecord(p, d.val) {
				kr.State, kr.Turns, kr.Restored = h.String(), refs[h], true
				writes = append(writes, cas.Entry{Key: []byte(p + h.String()), Value: d.val})
			}
			out = append(out, kr)
		}
	}
	return out, r.commit(ctx, writes, deletes)
}

// matchKey returns the one state of want whose key under prefix differs
// from key in the fewest bytes, at most keyMatchBytes; ok is false when
// none does or two tie.
func matchKey(key []byte, prefix string, want []cas.Hash) (cas.Hash, bool) {
	best, n, tie := cas.Hash{}, keyMatchBytes+1, false
	for _, h := range want {
		k := prefix + h.String()
		if len(k) != len(key) {
			continue
		}
		d := 0
		for i := range key {
			if key[i] != k[i] {
				d++
			}
		}
		switch {
		case d < n:
			best, n, tie = h, d, false
		case d == n:
			tie = true
		}
	}
	return best, n <= keyMatchBytes && !tie
}

// validRecord reports whether val decodes as a record of prefix.
func validRecord(prefix string, val []byte) bool {
	if prefix == model.PrefixSnap {
		var rec model.SnapshotRecord
		return json.Unmarshal(val, &rec) == nil
	}
	var rec model.CheckpointRecord
	return json.Unmarshal(val, &rec) == nil
}

// stateRefs returns every state the sessions and the latest capture
// refer to, each with the turns that hold it ("turn 3 of session x").
func (r *Repo) stateRefs(ctx context.Context) (map[cas.Hash][]string, error) {
	refs := map[cas.Hash][]string{}
	add := func(id string, turn string) {
		h, err := cas.ParseHash(id)
		if err != nil {
			return // verify names a damaged session or turn
		}
		if turn != "" {
			refs[h] = append(refs[h], turn)
		} else if _, ok := refs[h]; !ok {
			refs[h] = nil
		}
	}
	sessions, err := r.sessions(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range sessions {
		add(s.Last, "")
		for _, g := range s.Redo {
			add(g.Checkpoint, "")
			add(g.Expected, "")
		}
		for _, n := range s.AllTurns() {
			t, err := r.loadTurn(ctx, s.Name, n)
			if err != nil {
				continue // not a record key's damage
			}
			name := fmt.Sprintf("turn %d of session %s", n, s.Name)
			add(t.BeforeID, name)
			if t.AfterID != "" {
				add(t.AfterID, name)
			}
		}
	}
	if h, err := r.latest(ctx); err == nil && !h.IsZero() {
		add(h.String(), "")
	}
	for h := range refs {
		sort.Strings(refs[h])
	}
	return refs, nil
}

// checkpointStates returns the states recorded as checkpoints (their
// snapshot record says so) that have no checkpoint record.
func (r *Repo) checkpointStates(ctx context.Context, snaps, cps map[cas.Hash]bool) []cas.Hash {
	var out []cas.Hash
	for h := range snaps {
		if cps[h] {
			continue
		}
		var rec model.SnapshotRecord
		if ok, err := r.getJSON(ctx, model.SnapKey(h), &rec); err == nil && ok && rec.Kind == model.KindCheckpoint {
			out = append(out, h)
		}
	}
	return out
}
