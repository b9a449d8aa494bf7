package turnback

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
)

// Default retention, applied by GC and, cheaply, after every snap.
const (
	DefaultKeepTurns = 100
	DefaultKeepAge   = 30 * 24 * time.Hour
)

// GCOptions set what GC keeps. Zero values mean the defaults.
type GCOptions struct {
	// Keep: turns to keep per session (newest first). Negative keeps all.
	Keep int
	// OlderThan: turns that started longer ago are forgotten. Negative
	// keeps them regardless of age.
	OlderThan time.Duration
	// DryRun counts without deleting anything.
	DryRun bool
}

// GCResult reports a GC.
type GCResult struct {
	TurnsForgotten     int   `json:"turns_forgotten"`
	SnapshotsForgotten int   `json:"snapshots_forgotten"`
	BlobsRemoved       int64 `json:"blobs_removed"`
	ChunkListsRemoved  int64 `json:"chunk_lists_removed"`
	BlobsKept          int64 `json:"blobs_kept"`
	SizeBefore         int64 `json:"size_before"`
	SizeAfter          int64 `json:"size_after"`
	DryRun             bool  `json:"dry_run"`
	// Checkpoints lists the checkpoints dropped (or, in a dry run, that
	// would be), oldest first; they count in SnapshotsForgotten too.
	Checkpoints []Checkpoint `json:"checkpoints_forgotten"`
}

func (o GCOptions) withDefaults() GCOptions {
	if o.Keep == 0 {
		o.Keep = DefaultKeepTurns
	}
	if o.OlderThan == 0 {
		o.OlderThan = DefaultKeepAge
	}
	return o
}

// forget drops the session's turns beyond the policy: all but the newest
// Keep, and those that started more than OlderThan ago. The open turn and
// the redo stack are never touched. It returns the keys to delete.
func forget(ctx context.Context, r *Repo, sess *sessionRecord, o GCOptions, now time.Time) ([][]byte, error) {
	var dead [][]byte
	keepFrom := 0
	if o.Keep >= 0 && len(sess.Turns) > o.Keep {
		keepFrom = len(sess.Turns) - o.Keep
	}
	var kept []int
	for i, n := range sess.Turns {
		last := i == len(sess.Turns)-1
		drop := i < keepFrom
		if !drop && o.OlderThan >= 0 && !last {
			t, err := r.loadTurn(ctx, sess.Name, n)
			if err != nil {
				return nil, err
			}
			drop = now.Sub(t.Started) > o.OlderThan
		}
		if drop && last {
			t, err := r.loadTurn(ctx, sess.Name, n)
			if err != nil {
				return nil, err
			}
			drop = !t.Open()
		}
		if drop {
			dead = append(dead, turnKey(sess.Name, n))
			sess.Forgotten = max(sess.Forgotten, n)
		} else {
			kept = append(kept, n)
		}
	}
	sess.Turns = kept
	return dead, nil
}

func (r *Repo) sessions(ctx context.Context) ([]*sessionRecord, error) {
	var out []*sessionRecord
	err := r.backend.Scan(ctx, []byte(prefixSess), false, func(k, v []byte) error {
		s := &sessionRecord{}
		if err := json.Unmarshal(v, s); err != nil {
			return fmt.Errorf("%w: record %s: %v", cas.ErrCorrupt, k, err)
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// GC forgets turns beyond the retention policy, removes every snapshot,
// tree and blob no remaining turn, redo entry, kept checkpoint or the
// latest state needs, and makes the store give the disk space back. A
// checkpoint is kept while the turns around it are (see checkpoints.go).
func (r *Repo) GC(ctx context.Context, o GCOptions) (*GCResult, error) {
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	// Unset fields take the Repo's configured policy, then the defaults.
	if o.Keep == 0 {
		o.Keep = r.opts.KeepTurns
	}
	if o.OlderThan == 0 {
		o.OlderThan = r.opts.KeepAge
	}
	return r.gc(ctx, o.withDefaults())
}

func (r *Repo) gc(ctx context.Context, o GCOptions) (*GCResult, error) {
	res := &GCResult{DryRun: o.DryRun, Checkpoints: []Checkpoint{}}
	var err error
	if res.SizeBefore, err = cas.DiskUsage(r.storeDir); err != nil {
		return nil, err
	}
	now := time.Now()
	sessions, err := r.sessions(ctx)
	if err != nil {
		return nil, err
	}
	live := map[cas.Hash]bool{}
	var writes []cas.Entry
	var deletes [][]byte
	for _, s := range sessions {
		dead, err := forget(ctx, r, s, o, now)
		if err != nil {
			return nil, err
		}
		res.TurnsForgotten += len(dead)
		deletes = append(deletes, dead...)
		writes = append(writes, sessionEntry(s))
		if s.Last != "" {
			// What status and diff compare with, held by nothing else
			// after a dropped turn.
			h, err := cas.ParseHash(s.Last)
			if err != nil {
				return nil, fmt.Errorf("%w: session %s: %v", cas.ErrCorrupt, s.Name, err)
			}
			live[h] = true
		}
		nums := append([]int(nil), s.Turns...)
		for _, g := range s.Redo {
			nums = append(nums, g.Turns...)
			for _, id := range []string{g.Checkpoint, g.Expected} {
				h, err := cas.ParseHash(id)
				if err != nil {
					return nil, fmt.Errorf("%w: session %s redo: %v", cas.ErrCorrupt, s.Name, err)
				}
				live[h] = true
			}
		}
		for _, n := range nums {
			t, err := r.loadTurn(ctx, s.Name, n)
			if err != nil {
				return nil, err
			}
			live[t.Before] = true
			if !t.Open() {
				live[t.After] = true
			}
		}
	}
	if h, err := r.latest(ctx); err != nil {
		return nil, err
	} else if !h.IsZero() {
		live[h] = true
	}
	if ws := r.watch; ws != nil && !ws.base.IsZero() {
		// The next incremental capture reuses this tree's subtrees.
		live[ws.base] = true
	}
	// Snapshot records: keep the live ones and the checkpoints retention
	// keeps.
	type snapRec struct {
		h   cas.Hash
		rec snapshotRecord
	}
	var snaps []snapRec
	err = r.backend.Scan(ctx, []byte(prefixSnap), false, func(k, v []byte) error {
		h, err := cas.ParseHash(strings.TrimPrefix(string(k), prefixSnap))
		if err != nil {
			return fmt.Errorf("%w: snapshot key %q", cas.ErrCorrupt, k)
		}
		var rec snapshotRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return fmt.Errorf("%w: snapshot %s: %v", cas.ErrCorrupt, h.Short(), err)
		}
		snaps = append(snaps, snapRec{h, rec})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(snaps, func(i, j int) bool { return snaps[i].rec.Time.After(snaps[j].rec.Time) })
	for _, s := range snaps {
		// The newest checkpoint stays whatever its age, as the newest
		// turn does (also one made before checkpoints had records).
		if s.rec.Kind == kindCheckpoint {
			live[s.h] = true
			break
		}
	}
	cps, err := r.checkpoints(ctx)
	if err != nil {
		return nil, err
	}
	forgotten := map[string]int{}
	for _, s := range sessions {
		forgotten[s.Name] = s.Forgotten
	}
	sort.Slice(cps, func(i, j int) bool { return cps[i].Time.Before(cps[j].Time) })
	var dropped []Checkpoint
	for _, c := range cps {
		h, _ := cas.ParseHash(c.ID) // checked by checkpoints
		if keepCheckpoint(c, forgotten[c.Session], o, now) {
			live[h] = true
		} else if !live[h] {
			dropped = append(dropped, c)
		}
	}
	for _, c := range dropped {
		h, _ := cas.ParseHash(c.ID)
		if live[h] {
			continue // also the newest checkpoint, or needed otherwise
		}
		deletes = append(deletes, checkpointKey(h))
		res.Checkpoints = append(res.Checkpoints, c)
	}
	for _, s := range snaps {
		if !live[s.h] {
			deletes = append(deletes, snapKey(s.h))
			res.SnapshotsForgotten++
		}
	}
	// Mark everything the live snapshots reach.
	set := cas.LiveSet{}
	loader := manifest.NewStoreLoader(r.store)
	var mark func(h cas.Hash) error
	mark = func(h cas.Hash) error {
		if _, ok := set[h]; ok {
			return nil
		}
		set[h] = struct{}{}
		if h == manifest.EmptyTreeHash() {
			return nil
		}
		t, err := loader.LoadTree(ctx, h)
		if err != nil {
			return fmt.Errorf("turnback: gc: tree %s: %w (run verify; nothing was removed)", h.Short(), err)
		}
		for i := range t.Entries {
			e := &t.Entries[i]
			switch {
			case e.Uncaptured:
				if e.Kind == manifest.KindFile && !e.Hash.IsZero() {
					set[e.Hash] = struct{}{} // keeps its reference record (refs.go)
				}
			case e.Kind == manifest.KindDir:
				if err := mark(e.Hash); err != nil {
					return err
				}
			case e.Kind == manifest.KindFile:
				if err := r.store.MarkContent(ctx, e.Hash, set); err != nil {
					return fmt.Errorf("turnback: gc: %s: %w (nothing was removed)", e.Name, err)
				}
			}
		}
		return nil
	}
	for h := range live {
		if err := mark(h); err != nil {
			return nil, err
		}
	}
	err = r.cache.Hashes(ctx, func(h cas.Hash) error {
		// Content the stat cache vouches for may be missing (say, after a
		// damaged store was repaired by hand): then it is simply not kept.
		if ok, err := r.store.HasContent(ctx, h); err != nil || !ok {
			return err
		}
		return r.store.MarkContent(ctx, h, set)
	})
	if err != nil {
		return nil, err
	}
	if !o.DryRun {
		// Records first: once they are gone nothing refers to the blobs.
		if err := r.commit(ctx, writes, deletes); err != nil {
			return nil, err
		}
	}
	st, err := r.store.Sweep(ctx, set, o.DryRun)
	if err != nil {
		return nil, err
	}
	res.BlobsRemoved, res.ChunkListsRemoved, res.BlobsKept = st.Blobs, st.Indexes, st.Kept
	if err := r.sweepRefs(ctx, set, o.DryRun); err != nil {
		return nil, err
	}
	if !o.DryRun {
		if err := r.backend.Reclaim(ctx); err != nil {
			return nil, err
		}
	}
	if res.SizeAfter, err = cas.DiskUsage(r.storeDir); err != nil {
		return nil, err
	}
	return res, nil
}

// autoSlack lets a session grow this far past its turn limit before the
// cheap automatic retention trims it, so trimming happens once per
// autoSlack snaps rather than on every one.
const autoSlack = 10

// keyGC records the store size after the last full gc.
const keyGC = "m/gc"

type gcRecord struct {
	Time time.Time `json:"time"`
	Size int64     `json:"size"`
}

// autoRetain applies the retention policy cheaply after a snap: it trims
// the session's turn records when they exceed the limit by autoSlack, and
// every 50th turn runs a full gc if the store has more than doubled (and
// passed 256 MiB) since the last one. Failures are returned; callers
// report them as warnings (the snap itself is already recorded).
func (r *Repo) autoRetain(ctx context.Context, turn int) error {
	o := GCOptions{Keep: r.opts.KeepTurns, OlderThan: r.opts.KeepAge}.withDefaults()
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return err
	}
	if o.Keep >= 0 && len(sess.Turns) > o.Keep+autoSlack {
		dead, err := forget(ctx, r, sess, o, time.Now())
		if err != nil {
			return err
		}
		if err := r.commit(ctx, []cas.Entry{sessionEntry(sess)}, dead); err != nil {
			return err
		}
	}
	if turn%50 != 0 {
		return nil
	}
	size, err := cas.DiskUsage(r.storeDir)
	if err != nil {
		return err
	}
	var last gcRecord
	if _, err := r.getJSON(ctx, []byte(keyGC), &last); err != nil {
		return err
	}
	if size < 256<<20 || size < 2*last.Size {
		return nil
	}
	res, err := r.gc(ctx, o)
	if err != nil {
		return err
	}
	return r.backend.Set(ctx, cas.Entry{Key: []byte(keyGC), Value: encodeJSON(gcRecord{Time: time.Now().UTC(), Size: res.SizeAfter})})
}
