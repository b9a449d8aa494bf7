package turnback

// The reading methods of a daemon-served Repo (api_client.go).

import (
	"context"
	"net/url"
	"time"

	"github.com/turnback/turnback/cas"
)

func (rm *remoteRepo) status(ctx context.Context, o StatusOptions) (*StatusResult, error) {
	return call(ctx, rm, func() (*StatusResult, error) {
		var out StatusResponse
		q := url.Values{"session": {rm.opts.Session}}
		if o.Ignored {
			q.Set("ignored", "true")
		}
		if err := rm.do(ctx, "GET", "/v1/status", q, nil, &out); err != nil {
			return nil, err
		}
		st := &StatusResult{Stats: out.Stats, Watch: out.Watch, Ignored: out.Ignored}
		if o.Ignored && st.Ignored == nil {
			st.Ignored = []Ignored{}
		}
		var err error
		if st.Base, err = parseDocID(out.Base); err != nil {
			return nil, err
		}
		if st.Current, err = parseDocID(out.Current); err != nil {
			return nil, err
		}
		for _, j := range out.Changes {
			c, err := j.change()
			if err != nil {
				return nil, err
			}
			st.Changes = append(st.Changes, c)
		}
		return st, nil
	}, func(l *Repo) (*StatusResult, error) { return l.StatusWith(ctx, o) })
}

// diffResult is Diff's results in one value.
type diffResult struct {
	from, to cas.Hash
	diffs    []FileDiff
}

func (rm *remoteRepo) diff(ctx context.Context, a, b string) (from, to cas.Hash, diffs []FileDiff, err error) {
	res, err := call(ctx, rm, func() (*diffResult, error) {
		var out DiffResponse
		q := url.Values{"session": {rm.opts.Session}}
		if a != "" {
			q.Set("from", a)
		}
		if b != "" {
			q.Set("to", b)
		}
		if err := rm.do(ctx, "GET", "/v1/diff", q, nil, &out); err != nil {
			return nil, err
		}
		d := &diffResult{}
		f, err := parseDocID(out.From)
		if err != nil {
			return nil, err
		}
		t, err := parseDocID(out.To)
		if err != nil {
			return nil, err
		}
		d.from, d.to = f, t
		for _, j := range out.Files {
			c, err := j.change()
			if err != nil {
				return nil, err
			}
			d.diffs = append(d.diffs, FileDiff{Change: c, OldData: j.OldData, NewData: j.NewData})
		}
		return d, nil
	}, func(l *Repo) (*diffResult, error) {
		f, t, ds, err := l.Diff(ctx, a, b)
		return &diffResult{f, t, ds}, err
	})
	if err != nil {
		return from, to, nil, err
	}
	return res.from, res.to, res.diffs, nil
}

// turnsResult is Turns' results in one value.
type turnsResult struct{ turns, redo []*Turn }

func (rm *remoteRepo) turns(ctx context.Context) (turns, redo []*Turn, err error) {
	res, err := call(ctx, rm, func() (*turnsResult, error) {
		var out TurnsResponse
		if err := rm.do(ctx, "GET", rm.sessionPath("turns"), nil, nil, &out); err != nil {
			return nil, err
		}
		t, err := TurnsOfJSON(out.Turns)
		if err != nil {
			return nil, err
		}
		r, err := TurnsOfJSON(out.Redo)
		return &turnsResult{t, r}, err
	}, func(l *Repo) (*turnsResult, error) {
		t, r, err := l.Turns(ctx)
		return &turnsResult{t, r}, err
	})
	if err != nil {
		return nil, nil, err
	}
	return res.turns, res.redo, nil
}

func (rm *remoteRepo) show(ctx context.Context, id string) (*SnapshotInfo, error) {
	return call(ctx, rm, func() (*SnapshotInfo, error) {
		var out ShowResponse
		if err := rm.do(ctx, "GET", "/v1/snapshots/"+url.PathEscape(id), url.Values{"session": {rm.opts.Session}}, nil, &out); err != nil {
			return nil, err
		}
		h, err := parseDocID(out.ID)
		if err != nil {
			return nil, err
		}
		info := &SnapshotInfo{ID: h, Files: out.Files, Bytes: out.Bytes}
		for _, pe := range out.Entries {
			e, err := pe.Entry.entry()
			if err != nil {
				return nil, err
			}
			info.Entries = append(info.Entries, PathEntry{Path: pe.Path, Entry: *e})
		}
		if info.Turns, err = TurnsOfJSON(out.Turns); err != nil {
			return nil, err
		}
		return info, nil
	}, func(l *Repo) (*SnapshotInfo, error) { return l.Show(ctx, id) })
}

func (rm *remoteRepo) sessions(ctx context.Context) ([]SessionInfo, error) {
	return call(ctx, rm, func() ([]SessionInfo, error) {
		var out SessionsResponse
		if err := rm.do(ctx, "GET", "/v1/sessions", nil, nil, &out); err != nil {
			return nil, err
		}
		if len(out.Sessions) == 0 {
			return nil, nil // none: nil
		}
		return out.Sessions, nil
	}, func(l *Repo) ([]SessionInfo, error) { return l.Sessions(ctx) })
}

// findSession and latestSession apply the rules of sessions.go to the
// daemon's list, which names every session record.
func (rm *remoteRepo) findSession(ctx context.Context, name string) (string, error) {
	list, err := rm.sessions(ctx)
	if err != nil {
		return "", err
	}
	return findSession(list, name)
}

func (rm *remoteRepo) latestSession(ctx context.Context) (SessionInfo, error) {
	list, err := rm.sessions(ctx)
	if err != nil {
		return SessionInfo{}, err
	}
	return latestSession(list, (&Repo{opts: rm.opts}).now())
}

func (rm *remoteRepo) verify(ctx context.Context) (*VerifyResult, error) {
	return call(ctx, rm, func() (*VerifyResult, error) {
		var out VerifyResult
		if err := rm.do(ctx, "POST", "/v1/verify", nil, struct{}{}, &out); err != nil {
			return nil, err
		}
		if len(out.Problems) == 0 {
			out.Problems = nil
		}
		return &out, nil
	}, func(l *Repo) (*VerifyResult, error) { return l.Verify(ctx) })
}

func (rm *remoteRepo) gc(ctx context.Context, o GCOptions) (*GCResult, error) {
	if err := rm.writable(); err != nil {
		return nil, err
	}
	return call(ctx, rm, func() (*GCResult, error) {
		var out GCResult
		req := GCRequest{Keep: o.Keep, OlderThanSeconds: int64(o.OlderThan / time.Second), DryRun: o.DryRun}
		if err := rm.do(ctx, "POST", "/v1/gc", nil, req, &out); err != nil {
			return nil, err
		}
		if len(out.Checkpoints) == 0 {
			out.Checkpoints = nil
		}
		return &out, nil
	}, func(l *Repo) (*GCResult, error) { return l.GC(ctx, o) })
}

func (rm *remoteRepo) info(ctx context.Context) (*Info, error) {
	return call(ctx, rm, func() (*Info, error) {
		var out Info
		if err := rm.do(ctx, "GET", "/v1/info", nil, nil, &out); err != nil {
			return nil, err
		}
		return &out, nil
	}, func(l *Repo) (*Info, error) { return l.Info(ctx) })
}
