package turnback

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker"
)

// Change is one path that differs between two states.
type Change struct {
	Path string              `json:"path"`
	Kind manifest.ChangeKind `json:"-"`
	What string              `json:"change"` // Kind as text
	Old  *manifest.Entry     `json:"-"`
	New  *manifest.Entry     `json:"-"`
}

// StatusResult lists the changes since the session's last snapshot.
type StatusResult struct {
	Base    cas.Hash // the session's last snapshot (zero if none)
	Current cas.Hash // the work tree now
	Changes []Change
	Stats   walker.Stats
	Watch   *WatchInfo // how the capture read the tree (watching Repos only)
}

// lastSnapshot returns the newest state the session recorded: the state
// its last undo or redo left, the open turn's before-state, or the newest
// closed turn's after-state.
func (r *Repo) lastSnapshot(ctx context.Context) (cas.Hash, error) {
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return cas.Hash{}, err
	}
	if sess.Last != "" {
		h, err := cas.ParseHash(sess.Last)
		if err != nil {
			return cas.Hash{}, fmt.Errorf("%w: session %s: %v", cas.ErrCorrupt, r.session, err)
		}
		return h, nil
	}
	if n := len(sess.Redo); n > 0 {
		h, err := cas.ParseHash(sess.Redo[n-1].Expected)
		if err != nil {
			return cas.Hash{}, fmt.Errorf("%w: session %s: %v", cas.ErrCorrupt, r.session, err)
		}
		return h, nil
	}
	if n := len(sess.Turns); n > 0 {
		t, err := r.loadTurn(ctx, r.session, sess.Turns[n-1])
		if err != nil {
			return cas.Hash{}, err
		}
		if t.Open() {
			return t.Before, nil
		}
		return t.After, nil
	}
	return cas.Hash{}, nil
}

// Status captures the work tree and lists what changed since the
// session's last snapshot. It records no turn.
func (r *Repo) Status(ctx context.Context) (*StatusResult, error) {
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	base, err := r.lastSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	res, err := r.capture(ctx)
	if err != nil {
		return nil, err
	}
	out := &StatusResult{Base: base, Current: res.Root, Stats: res.Stats, Watch: res.Watch}
	out.Changes, err = r.changes(ctx, base, res.Root)
	return out, err
}

func (r *Repo) changes(ctx context.Context, a, b cas.Hash) ([]Change, error) {
	var out []Change
	err := manifest.Diff(ctx, manifest.NewStoreLoader(r.store), a, b, func(c manifest.Change) error {
		out = append(out, Change{Path: c.Path, Kind: c.Kind, What: c.Kind.String(), Old: c.Old, New: c.New})
		return nil
	})
	return out, err
}

// SnapshotInfo describes one snapshot for Show.
type SnapshotInfo struct {
	ID      cas.Hash
	Files   int64
	Bytes   int64
	Entries []PathEntry
	Turns   []*Turn // turns of this session that start or end at it
}

// PathEntry is one path of a snapshot.
type PathEntry struct {
	Path  string
	Entry manifest.Entry
}

// Show describes the snapshot with the given id (any unique prefix).
func (r *Repo) Show(ctx context.Context, id string) (*SnapshotInfo, error) {
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	h, err := r.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	info := &SnapshotInfo{ID: h}
	err = manifest.Walk(ctx, manifest.NewStoreLoader(r.store), h, func(p string, e *manifest.Entry) error {
		info.Entries = append(info.Entries, PathEntry{Path: p, Entry: *e})
		if e.Kind == manifest.KindFile {
			info.Files++
			info.Bytes += e.Size
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("turnback: snapshot %s: %w", h.Short(), err)
	}
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return nil, err
	}
	for _, n := range sess.Turns {
		t, err := r.loadTurn(ctx, r.session, n)
		if err != nil {
			return nil, err
		}
		if t.Before == h || (!t.Open() && t.After == h) {
			info.Turns = append(info.Turns, t)
		}
	}
	return info, nil
}

// FileDiff is the difference of one path between two states, with the
// contents needed to show it.
type FileDiff struct {
	Change
	OldData, NewData []byte // nil when not a captured regular file or too large
}

// maxDiffBytes bounds the content Diff loads for one side of one file.
const maxDiffBytes = 8 << 20

// Diff compares two states. With a and b empty it compares the session's
// last snapshot with the work tree now; with only b empty, snapshot a with
// the work tree now; otherwise snapshot a with snapshot b. Ids may be any
// unique prefix.
func (r *Repo) Diff(ctx context.Context, a, b string) (from, to cas.Hash, diffs []FileDiff, err error) {
	if err := r.lock(); err != nil {
		return from, to, nil, err
	}
	defer r.mu.Unlock()
	if a == "" {
		if from, err = r.lastSnapshot(ctx); err != nil {
			return from, to, nil, err
		}
	} else if from, err = r.resolve(ctx, a); err != nil {
		return from, to, nil, err
	}
	if b == "" {
		res, err := r.capture(ctx)
		if err != nil {
			return from, to, nil, err
		}
		to = res.Root
	} else if to, err = r.resolve(ctx, b); err != nil {
		return from, to, nil, err
	}
	changes, err := r.changes(ctx, from, to)
	if err != nil {
		return from, to, nil, err
	}
	for _, c := range changes {
		fd := FileDiff{Change: c}
		if fd.OldData, err = r.content(ctx, c.Old); err != nil {
			return from, to, nil, fmt.Errorf("turnback: %s: %w", c.Path, err)
		}
		if fd.NewData, err = r.content(ctx, c.New); err != nil {
			return from, to, nil, fmt.Errorf("turnback: %s: %w", c.Path, err)
		}
		diffs = append(diffs, fd)
	}
	return from, to, diffs, nil
}

func (r *Repo) content(ctx context.Context, e *manifest.Entry) ([]byte, error) {
	if e == nil || e.Kind != manifest.KindFile || e.Uncaptured || e.Size > maxDiffBytes {
		return nil, nil
	}
	rd, err := r.store.Open(ctx, e.Hash)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(rd)
}

// VerifyProblem is one damaged path found by Verify.
type VerifyProblem struct {
	Snapshot string `json:"snapshot"`
	Path     string `json:"path"`
	Err      string `json:"error"`
}

// VerifyResult reports a Verify run.
type VerifyResult struct {
	Snapshots int `json:"snapshots"`
	Trees     int `json:"trees"`
	Contents  int `json:"contents"`
	// References counts the contents above (of files over the size
	// limit) checked by reading them back from a recorded reference.
	References int             `json:"references"`
	Problems   []VerifyProblem `json:"problems"`
}

// ErrVerify: Verify found damaged data.
var ErrVerify = errors.New("turnback: verify found damaged data")

// Verify re-reads and re-hashes every tree and content reachable from
// every recorded snapshot, including content over the size limit held by
// reference (read back from a recorded reference: see verifyHeld).
// Damage is listed by snapshot and path.
func (r *Repo) Verify(ctx context.Context) (*VerifyResult, error) {
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	var snaps []cas.Hash
	err := r.backend.Scan(ctx, []byte(prefixSnap), true, func(k, _ []byte) error {
		h, err := cas.ParseHash(string(k[len(prefixSnap):]))
		if err != nil {
			return fmt.Errorf("%w: snapshot key %q", cas.ErrCorrupt, k)
		}
		snaps = append(snaps, h)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := &VerifyResult{Snapshots: len(snaps)}
	seenTree := map[cas.Hash]bool{}
	seenContent := map[cas.Hash]bool{}
	bad := map[cas.Hash]string{}
	loader := manifest.NewStoreLoader(r.store)
	for _, s := range snaps {
		var walk func(h cas.Hash, dir string) error
		walk = func(h cas.Hash, dir string) error {
			if seenTree[h] {
				return nil
			}
			seenTree[h] = true
			out.Trees++
			t, err := loader.LoadTree(ctx, h)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				out.Problems = append(out.Problems, VerifyProblem{Snapshot: s.String(), Path: displayDir(dir), Err: err.Error()})
				return nil
			}
			for i := range t.Entries {
				e := &t.Entries[i]
				p := e.Name
				if dir != "" {
					p = dir + "/" + e.Name
				}
				switch {
				case e.Uncaptured && e.Kind == manifest.KindFile && !e.Hash.IsZero():
					if msg, ok := bad[e.Hash]; ok {
						out.Problems = append(out.Problems, VerifyProblem{Snapshot: s.String(), Path: p, Err: msg})
						continue
					}
					if seenContent[e.Hash] {
						continue
					}
					checked, byRef, why, err := r.verifyHeld(ctx, e.Hash)
					if err != nil {
						return err
					}
					if checked {
						// Unchecked (no reference recorded) stays unseen:
						// an entry that claims it is stored checks it then.
						seenContent[e.Hash] = true
						out.Contents++
						if byRef {
							out.References++
						}
					}
					if why != "" {
						bad[e.Hash] = why
						out.Problems = append(out.Problems, VerifyProblem{Snapshot: s.String(), Path: p, Err: why})
					}
				case e.Uncaptured:
				case e.Kind == manifest.KindDir:
					if err := walk(e.Hash, p); err != nil {
						return err
					}
				case e.Kind == manifest.KindFile:
					if msg, ok := bad[e.Hash]; ok {
						out.Problems = append(out.Problems, VerifyProblem{Snapshot: s.String(), Path: p, Err: msg})
						continue
					}
					if seenContent[e.Hash] {
						continue
					}
					seenContent[e.Hash] = true
					out.Contents++
					if err := r.store.Verify(ctx, e.Hash, nil); err != nil {
						if ctx.Err() != nil {
							return ctx.Err()
						}
						bad[e.Hash] = err.Error()
						out.Problems = append(out.Problems, VerifyProblem{Snapshot: s.String(), Path: p, Err: err.Error()})
					}
				}
			}
			return nil
		}
		if err := walk(s, ""); err != nil {
			return nil, err
		}
	}
	if len(out.Problems) > 0 {
		return out, fmt.Errorf("%w: %d problems", ErrVerify, len(out.Problems))
	}
	return out, nil
}

func displayDir(d string) string {
	if d == "" {
		return "."
	}
	return d
}
