package turnback

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest"
)

// Default retention, applied by GC and, cheaply, after every snap.
const (
	DefaultKeepTurns = 100
	DefaultKeepAge   = 30 * 24 * time.Hour
)

func gcDefaults(o GCOptions) GCOptions {
	if o.Keep == 0 {
		o.Keep = DefaultKeepTurns
	}
	if o.OlderThan == 0 {
		o.OlderThan = DefaultKeepAge
	}
	return o
}

func (r *Repo) sessions(ctx context.Context) ([]*model.SessionRecord, error) {
	var out []*model.SessionRecord
	err := r.backend.Scan(ctx, []byte(model.PrefixSess), false, func(k, v []byte) error {
		s := &model.SessionRecord{}
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
// checkpoint is kept while the turns around it are (see records.go).
func (r *Repo) GC(ctx context.Context, o GCOptions) (*GCResult, error) { return r.be.GC(ctx, o) }

func (l localRepo) GC(ctx context.Context, o GCOptions) (*GCResult, error) {
	r := l.r
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	// Unset fields take the Repo's configured policy, then the defaults.
	if o.Keep == 0 {
		o.Keep = r.opts.KeepTurns
	}
	if o.OlderThan == 0 {
		o.OlderThan = r.opts.KeepAge
	}
	return r.gc(ctx, gcDefaults(o))
}

// gc runs one collection, in steps: trim the sessions' turns (roots:
// what they still hold), add the roots no session records (the latest
// state, a watcher's base), trim the snapshot and checkpoint records,
// mark everything the roots reach, then sweep the rest and give the
// space back. Nothing is deleted before every step up to the mark has
// succeeded.
func (r *Repo) gc(ctx context.Context, o GCOptions) (*GCResult, error) {
	res := &GCResult{DryRun: o.DryRun, Checkpoints: []Checkpoint{}}
	defer r.trees.Clear() // the sweep may take trees out of the store
	defer r.forgetOpTrees()
	var err error
	if res.SizeBefore, err = cas.DiskUsage(r.storeDir); err != nil {
		return nil, err
	}
	g := &gcRun{o: o, now: time.Now(), res: res, live: map[cas.Hash]bool{}}
	if err := r.trimSessions(ctx, g); err != nil {
		return nil, err
	}
	if err := r.processRoots(ctx, g.live); err != nil {
		return nil, err
	}
	if err := r.trimSnapshots(ctx, g); err != nil {
		return nil, err
	}
	set, err := r.mark(ctx, g.live)
	if err != nil {
		return nil, err
	}
	if err := r.sweep(ctx, g, set); err != nil {
		return nil, err
	}
	if res.SizeAfter, err = cas.DiskUsage(r.storeDir); err != nil {
		return nil, err
	}
	return res, nil
}

// gcRun is one collection's state between its steps.
type gcRun struct {
	o        GCOptions
	now      time.Time
	res      *GCResult
	sessions []*model.SessionRecord
	// live: the snapshots that stay (the roots of the mark).
	live map[cas.Hash]bool
	// writes and deletes: the records the sweep commits first.
	writes  []cas.Entry
	deletes [][]byte
}

// trimSessions forgets every session's turns beyond the policy and
// records as live what the session still holds.
func (r *Repo) trimSessions(ctx context.Context, g *gcRun) error {
	var err error
	if g.sessions, err = r.sessions(ctx); err != nil {
		return err
	}
	for _, s := range g.sessions {
		pulled, err := r.validPulled(ctx, s)
		if err != nil {
			return err
		}
		dead, err := model.Forget(s, g.o, g.now, func(n int) (*Turn, error) { return r.loadTurn(ctx, s.Name, n) })
		if err != nil {
			return err
		}
		g.res.TurnsForgotten += len(dead)
		g.deletes = append(g.deletes, dead...)
		if len(dead) > 0 { // an unchanged record keeps its revision (see model.SessionEntry)
			g.writes = append(g.writes, model.SessionEntry(s))
		}
		if pulled != nil {
			e, err := model.KeepPulled(pulled, s, g.live)
			if err != nil {
				return err
			}
			if len(dead) > 0 {
				g.writes = append(g.writes, e)
			}
		}
		if err := r.sessionRoots(ctx, s, g.live); err != nil {
			return err
		}
	}
	return nil
}

// sessionRoots marks live the snapshots a (trimmed) session holds: its
// last capture, its turns' before and after states, and its redo
// stack's turns, checkpoints and expected states.
func (r *Repo) sessionRoots(ctx context.Context, s *model.SessionRecord, live map[cas.Hash]bool) error {
	if s.Last != "" {
		// What status and diff compare with, held by nothing else
		// after a dropped turn.
		h, err := cas.ParseHash(s.Last)
		if err != nil {
			return fmt.Errorf("%w: session %s: %v", cas.ErrCorrupt, s.Name, err)
		}
		live[h] = true
	}
	nums := append([]int(nil), s.Turns...)
	for _, g := range s.Redo {
		nums = append(nums, g.Turns...)
		for _, id := range []string{g.Checkpoint, g.Expected} {
			h, err := cas.ParseHash(id)
			if err != nil {
				return fmt.Errorf("%w: session %s redo: %v", cas.ErrCorrupt, s.Name, err)
			}
			live[h] = true
		}
	}
	for _, n := range nums {
		t, err := r.loadTurn(ctx, s.Name, n)
		if err != nil {
			return err
		}
		live[t.Before] = true
		if !t.Open() {
			live[t.After] = true
		}
	}
	return nil
}

// processRoots marks live the states no session records: the store's
// latest capture and the base of a watcher's next incremental capture.
func (r *Repo) processRoots(ctx context.Context, live map[cas.Hash]bool) error {
	if h, err := r.latest(ctx); err != nil {
		return err
	} else if !h.IsZero() {
		live[h] = true
	}
	if ws := r.watch; ws != nil && !ws.base.IsZero() {
		// The next incremental capture reuses this tree's subtrees.
		live[ws.base] = true
	}
	return nil
}

// snapRec is a snapshot record with its id.
type snapRec struct {
	h   cas.Hash
	rec model.SnapshotRecord
}

// snapshotRecords returns every snapshot record, newest first.
func (r *Repo) snapshotRecords(ctx context.Context) ([]snapRec, error) {
	var snaps []snapRec
	err := r.backend.Scan(ctx, []byte(model.PrefixSnap), false, func(k, v []byte) error {
		h, err := cas.ParseHash(strings.TrimPrefix(string(k), model.PrefixSnap))
		if err != nil {
			return fmt.Errorf("%w: snapshot key %q", cas.ErrCorrupt, k)
		}
		var rec model.SnapshotRecord
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
	return snaps, nil
}

// trimSnapshots keeps the snapshot records of live states and the
// checkpoints retention keeps (marking those live), and deletes the
// others' records.
func (r *Repo) trimSnapshots(ctx context.Context, g *gcRun) error {
	snaps, err := r.snapshotRecords(ctx)
	if err != nil {
		return err
	}
	for _, s := range snaps {
		// The newest checkpoint stays whatever its age, as the newest
		// turn does (also one made before checkpoints had records).
		if s.rec.Kind == model.KindCheckpoint {
			g.live[s.h] = true
			break
		}
	}
	if err := r.trimCheckpoints(ctx, g); err != nil {
		return err
	}
	for _, s := range snaps {
		if !g.live[s.h] {
			g.deletes = append(g.deletes, model.SnapKey(s.h))
			g.res.SnapshotsForgotten++
		}
	}
	return nil
}

// trimCheckpoints marks live the checkpoints retention keeps (see
// model.KeepCheckpoint) and deletes the records of the others that nothing
// else keeps, listing them in the result, oldest first.
func (r *Repo) trimCheckpoints(ctx context.Context, g *gcRun) error {
	cps, err := r.checkpoints(ctx)
	if err != nil {
		return err
	}
	forgotten := map[string]int{}
	for _, s := range g.sessions {
		forgotten[s.Name] = s.Forgotten
	}
	sort.Slice(cps, func(i, j int) bool { return cps[i].Time.Before(cps[j].Time) })
	var dropped []Checkpoint
	for _, c := range cps {
		h, _ := cas.ParseHash(c.ID) // checked by checkpoints
		if model.KeepCheckpoint(c, forgotten[c.Session], g.o, g.now) {
			g.live[h] = true
		} else if !g.live[h] {
			dropped = append(dropped, c)
		}
	}
	for _, c := range dropped {
		h, _ := cas.ParseHash(c.ID)
		if g.live[h] {
			continue // also the newest checkpoint, or needed otherwise
		}
		g.deletes = append(g.deletes, model.CheckpointKey(h))
		g.res.Checkpoints = append(g.res.Checkpoints, c)
	}
	return nil
}

// mark returns the set of everything the live snapshots reach (trees,
// blobs, chunk lists, the hashes of uncaptured files whose reference
// records stay) and the content the stat cache vouches for.
func (r *Repo) mark(ctx context.Context, live map[cas.Hash]bool) (cas.LiveSet, error) {
	set := cas.LiveSet{}
	loader := manifest.NewStoreLoader(r.store)
	for h := range live {
		if err := r.markTree(ctx, loader, h, set); err != nil {
			return nil, err
		}
	}
	if err := r.markRules(ctx, live, set); err != nil {
		return nil, err
	}
	err := r.cache.Hashes(ctx, func(h cas.Hash) error {
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
	return set, nil
}

// markTree adds tree h and everything under it to set.
func (r *Repo) markTree(ctx context.Context, loader manifest.Loader, h cas.Hash, set cas.LiveSet) error {
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
			if err := r.markTree(ctx, loader, e.Hash, set); err != nil {
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

// sweep commits the trimmed records, then removes the blobs, chunk lists
// and reference records outside set, and makes the store give the space
// back. A dry run only counts.
func (r *Repo) sweep(ctx context.Context, g *gcRun, set cas.LiveSet) error {
	if !g.o.DryRun {
		// Records first: once they are gone nothing refers to the blobs.
		if err := r.commit(ctx, g.writes, g.deletes); err != nil {
			return err
		}
	}
	st, err := r.store.Sweep(ctx, set, g.o.DryRun)
	if err != nil {
		return err
	}
	g.res.BlobsRemoved, g.res.ChunkListsRemoved, g.res.BlobsKept = st.Blobs, st.Indexes, st.Kept
	if err := r.sweepRefs(ctx, set, g.o.DryRun); err != nil {
		return err
	}
	if !g.o.DryRun {
		return r.backend.Reclaim(ctx)
	}
	return nil
}

// autoSlack lets a session grow this far past its turn limit before the
// cheap automatic retention trims it, so trimming happens once per
// autoSlack snaps rather than on every one.
const autoSlack = 10

// autoRetain applies the retention policy cheaply after a snap: it trims
// the session's turn records when they exceed the limit by autoSlack, and
// every 50th turn runs a full gc if the store has more than doubled (and
// passed 256 MiB) since the last one. Failures are returned; callers
// report them as warnings (the snap itself is already recorded).
func (r *Repo) autoRetain(ctx context.Context, turn int) error {
	o := gcDefaults(GCOptions{Keep: r.opts.KeepTurns, OlderThan: r.opts.KeepAge})
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return err
	}
	if o.Keep >= 0 && len(sess.Turns) > o.Keep+autoSlack {
		dead, err := model.Forget(sess, o, time.Now(), func(n int) (*Turn, error) { return r.loadTurn(ctx, sess.Name, n) })
		if err != nil {
			return err
		}
		if err := r.commit(ctx, []cas.Entry{model.SessionEntry(sess)}, dead); err != nil {
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
	var last model.GCRecord
	if _, err := r.getJSON(ctx, []byte(model.KeyGC), &last); err != nil {
		return err
	}
	if size < 256<<20 || size < 2*last.Size {
		return nil
	}
	res, err := r.gc(ctx, o)
	if err != nil {
		return err
	}
	return r.backend.Set(ctx, cas.Entry{Key: []byte(model.KeyGC), Value: model.EncodeJSON(model.GCRecord{Time: time.Now().UTC(), Size: res.SizeAfter})})
}
