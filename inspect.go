package turnback

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker"
)

// lastSnapshot returns the newest state the session recorded: the state
// its last undo or redo left, the open turn's before-state, or the newest
// closed turn's after-state.
func (r *Repo) lastSnapshot(ctx context.Context) (cas.Hash, error) {
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return cas.Hash{}, err
	}
	if h, ok, err := r.pulledBase(ctx, sess); err != nil || ok {
		return h, err // a pull left the folder behind the session
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
	return r.StatusWith(ctx, StatusOptions{})
}

// StatusWith is Status with options.
func (r *Repo) StatusWith(ctx context.Context, o StatusOptions) (*StatusResult, error) {
	return r.be.Status(ctx, o)
}

func (l localRepo) Status(ctx context.Context, o StatusOptions) (*StatusResult, error) {
	r := l.r
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	base, err := r.lastSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	res, err := r.captureWith(ctx, o.Ignored)
	if err != nil {
		return nil, err
	}
	out := &StatusResult{Base: base, Current: res.Root, Stats: res.Stats, Watch: res.Watch}
	if o.Ignored {
		out.Ignored = append([]Ignored{}, res.Skipped...)
		for i := range out.Ignored {
			out.Ignored[i].Rules = "" // kept for the state's record, not shown
		}
		out.Stats.Ignored = nil
	}
	out.Changes, out.SkippedNow, err = r.changes(ctx, base, res.Root, res.Result)
	return out, err
}

// Show describes the snapshot with the given id (any unique prefix of
// MinIDPrefix digits or more, or a turn reference: see TurnRef).
func (r *Repo) Show(ctx context.Context, id string) (*SnapshotInfo, error) { return r.be.Show(ctx, id) }

func (l localRepo) Show(ctx context.Context, id string) (*SnapshotInfo, error) {
	r := l.r
	h, err := r.lockResolve(ctx, id)
	if err != nil {
		return nil, err
	}
	defer r.unlock()
	info := &SnapshotInfo{ID: h}
	err = manifest.Walk(ctx, r.loader(), h, func(p string, e *manifest.Entry) error {
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
	if info.Partial, err = r.partialCount(ctx, h); err != nil {
		return nil, err
	}
	return info, nil
}

// maxDiffBytes bounds the content Diff loads for one side of one file.
const maxDiffBytes = 8 << 20

// Diff compares two states. With a and b empty it compares the session's
// last snapshot with the work tree now; with only b empty, snapshot a with
// the work tree now; otherwise snapshot a with snapshot b. Ids may be any
// unique prefix of MinIDPrefix digits or more, or turn references (@N,
// @N^; see TurnRef). Compare also returns the paths of a that b skips.
func (r *Repo) Diff(ctx context.Context, a, b string) (from, to cas.Hash, diffs []FileDiff, err error) {
	d, err := r.be.Diff(ctx, a, b)
	if err != nil {
		return from, to, nil, err
	}
	return d.From, d.To, d.Files, nil
}

// Compare is Diff in one value, with the paths of the first state that
// the second one's capture skipped (a marker or an ignore rule came
// since): not deleted, so not in Files, but in SkippedNow.
func (r *Repo) Compare(ctx context.Context, a, b string) (*DiffResult, error) {
	return r.be.Diff(ctx, a, b)
}

func (l localRepo) Diff(ctx context.Context, a, b string) (*DiffResult, error) {
	r := l.r
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	out := &DiffResult{}
	var err error
	if a == "" {
		if out.From, err = r.lastSnapshot(ctx); err != nil {
			return nil, err
		}
	} else if out.From, err = r.resolve(ctx, a); err != nil {
		return nil, err
	}
	var live *walker.Result
	if b == "" {
		res, err := r.capture(ctx)
		if err != nil {
			return nil, err
		}
		out.To, live = res.Root, res.Result
	} else if out.To, err = r.resolve(ctx, b); err != nil {
		return nil, err
	}
	out.Files, out.SkippedNow, err = r.fileDiffs(ctx, out.From, out.To, live, true)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// fileDiffs lists the differences from state a to state b, with both
// sides' contents when content is set, and apart the paths b's capture
// skipped (see changes; live as there).
func (r *Repo) fileDiffs(ctx context.Context, a, b cas.Hash, live *walker.Result, content bool) ([]FileDiff, []Ignored, error) {
	changes, skipped, err := r.changes(ctx, a, b, live)
	if err != nil {
		return nil, nil, err
	}
	var diffs []FileDiff
	for _, c := range changes {
		fd := FileDiff{Change: c}
		if content {
			if fd.OldData, err = r.content(ctx, c.Old); err != nil {
				return nil, nil, fmt.Errorf("turnback: %s: %w", c.Path, err)
			}
			if fd.NewData, err = r.content(ctx, c.New); err != nil {
				return nil, nil, fmt.Errorf("turnback: %s: %w", c.Path, err)
			}
		}
		diffs = append(diffs, fd)
	}
	return diffs, skipped, nil
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

// Turns returns the session's turns, newest first, and the undone turns
// waiting on its redo stack.
func (r *Repo) Turns(ctx context.Context) (turns, redo []*Turn, err error) { return r.be.Turns(ctx) }

func (l localRepo) Turns(ctx context.Context) (turns, redo []*Turn, err error) {
	r := l.r
	if err := r.lock(ctx); err != nil {
		return nil, nil, err
	}
	defer r.unlock()
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return nil, nil, err
	}
	return r.turnsOf(ctx, sess)
}

// AllTurns returns every session of the store with its turns, the
// sessions in the order of Sessions.
func (r *Repo) AllTurns(ctx context.Context) ([]SessionTurns, error) { return r.be.AllTurns(ctx) }

func (l localRepo) AllTurns(ctx context.Context) ([]SessionTurns, error) {
	r := l.r
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	list, err := r.sessionInfos(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]SessionTurns, len(list))
	for i, s := range list {
		sess, err := r.loadSession(ctx, s.Name)
		if err != nil {
			return nil, err
		}
		out[i].SessionInfo = s
		if out[i].Turns, out[i].Redo, err = r.turnsOf(ctx, sess); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// turnsOf loads the turns of sess as Turns returns them.
func (r *Repo) turnsOf(ctx context.Context, sess *model.SessionRecord) (turns, redo []*Turn, err error) {
	pulled, err := r.validPulled(ctx, sess)
	if err != nil {
		return nil, nil, err
	}
	for i := len(sess.Turns) - 1; i >= 0; i-- {
		t, err := r.loadTurn(ctx, sess.Name, sess.Turns[i])
		if err != nil {
			return nil, nil, err
		}
		t.Pulled = pulled != nil && slices.Contains(pulled.Turns, t.N)
		for _, g := range sess.Redo {
			if slices.Contains(g.Partial, t.N) {
				t.PartlyUndone = append(t.PartlyUndone, g.Paths...)
			}
		}
		turns = append(turns, t)
	}
	// Newest first: the last redo to happen comes first.
	for i := 0; i < len(sess.Redo); i++ {
		g := sess.Redo[i]
		for j := len(g.Turns) - 1; j >= 0; j-- {
			t, err := r.loadTurn(ctx, sess.Name, g.Turns[j])
			if err != nil {
				return nil, nil, err
			}
			redo = append(redo, t)
		}
	}
	return turns, redo, nil
}

// Info reports the store's location, size and contents.
func (r *Repo) Info(ctx context.Context) (*Info, error) { return r.be.Info(ctx) }

func (l localRepo) Info(ctx context.Context) (*Info, error) {
	r := l.r
	if err := r.lock(ctx); err != nil {
		return nil, err
	}
	defer r.unlock()
	o := gcDefaults(GCOptions{Keep: r.opts.KeepTurns, OlderThan: r.opts.KeepAge})
	in := &Info{WorkTree: r.workTree, Store: r.storeDir, SizeLimit: r.opts.SizeLimit, LargeDirFiles: r.opts.LargeDirFiles,
		KeepTurns: o.Keep, KeepAgeDays: int(o.OlderThan.Hours() / 24)}
	if in.SizeLimit == 0 {
		in.SizeLimit = walker.DefaultSizeLimit
	}
	if in.LargeDirFiles == 0 {
		in.LargeDirFiles = walker.DefaultLargeDirFiles
	}
	var err error
	if in.DiskBytes, err = cas.DiskUsage(r.storeDir); err != nil {
		return nil, err
	}
	sessions, err := r.sessions(ctx)
	if err != nil {
		return nil, err
	}
	in.Sessions = len(sessions)
	for _, s := range sessions {
		in.Turns += len(s.Turns)
		for _, g := range s.Redo {
			in.Redoable += len(g.Turns)
		}
	}
	// Each tree is read once: its logical size is memoised, so shared
	// subtrees cost nothing however many snapshots hold them.
	seen := map[cas.Hash]bool{}
	sizes := map[cas.Hash]int64{}
	loader := r.loader()
	var size func(h cas.Hash) (int64, error)
	size = func(h cas.Hash) (int64, error) {
		if n, ok := sizes[h]; ok {
			return n, nil
		}
		var n int64
		if h != manifest.EmptyTreeHash() {
			t, err := loader.LoadTree(ctx, h)
			if err != nil {
				return 0, err
			}
			for i := range t.Entries {
				e := &t.Entries[i]
				switch {
				case e.Uncaptured:
					if err := r.countProtection(ctx, e, seen, in); err != nil {
						return 0, err
					}
				case e.Kind == manifest.KindDir:
					k, err := size(e.Hash)
					if err != nil {
						return 0, err
					}
					n += k
				case e.Kind == manifest.KindFile:
					n += e.Size
					if !seen[e.Hash] {
						seen[e.Hash] = true
						in.UniqueBytes += e.Size
					}
				}
			}
		}
		sizes[h] = n
		return n, nil
	}
	err = r.backend.Scan(ctx, []byte(model.PrefixSnap), true, func(k, _ []byte) error {
		h, err := cas.ParseHash(strings.TrimPrefix(string(k), model.PrefixSnap))
		if err != nil {
			return nil
		}
		in.Snapshots++
		n, err := size(h)
		in.LogicalBytes += n
		return err
	})
	if err != nil {
		return nil, err
	}
	in.BytesByCopy = in.UniqueBytes
	return in, nil
}
