package api

// The operations of a daemon-served Repo, one request each: the
// request's document out, the answer's document back into the model's
// values, as the same method returns them on a Repo held here.

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"time"

	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/walker"
)

// Snap runs a snap (POST /v1/sessions/{session}/snap).
func (c *Client) Snap(ctx context.Context, cl Call, req SnapRequest) (*model.SnapResult, error) {
	var out SnapResponse
	if err := c.Do(ctx, cl, "POST", cl.sessionPath("snap"), nil, req, &out); err != nil {
		return nil, err
	}
	return out.result()
}

// End ends the session's open turn.
func (c *Client) End(ctx context.Context, cl Call) (*model.SnapResult, error) {
	var out SnapResponse
	if err := c.Do(ctx, cl, "POST", cl.sessionPath("end"), nil, struct{}{}, &out); err != nil {
		return nil, err
	}
	return out.result()
}

// restore runs an undo, redo or restore; a conflict returns its result
// with the error.
func (c *Client) restore(ctx context.Context, cl Call, path string, body any) (*model.RestoreResult, error) {
	var out RestoreResponse
	if err := c.Do(ctx, cl, "POST", path, nil, body, &out); err != nil {
		var ce *model.ConflictError
		if errors.As(err, &ce) {
			return ce.Result, err
		}
		return nil, err
	}
	return out.result()
}

// Undo runs an undo.
func (c *Client) Undo(ctx context.Context, cl Call, req UndoRequest) (*model.RestoreResult, error) {
	return c.restore(ctx, cl, cl.sessionPath("undo"), req)
}

// Redo runs a redo.
func (c *Client) Redo(ctx context.Context, cl Call, req RedoRequest) (*model.RestoreResult, error) {
	return c.restore(ctx, cl, cl.sessionPath("redo"), req)
}

// Restore runs a restore (POST /v1/restore).
func (c *Client) Restore(ctx context.Context, cl Call, req RestoreRequest) (*model.RestoreResult, error) {
	return c.restore(ctx, cl, "/v1/restore", req)
}

// Status asks for the folder's status; ignored: with what the capture
// skipped.
func (c *Client) Status(ctx context.Context, cl Call, ignored bool) (*model.StatusResult, error) {
	var out StatusResponse
	q := url.Values{"session": {cl.Session}}
	if ignored {
		q.Set("ignored", "true")
	}
	if err := c.Do(ctx, cl, "GET", "/v1/status", q, nil, &out); err != nil {
		return nil, err
	}
	st := &model.StatusResult{Stats: out.Stats, Watch: out.Watch, Ignored: out.Ignored, SkippedNow: out.SkippedNow}
	if ignored && st.Ignored == nil {
		st.Ignored = []walker.Ignored{}
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
}

// Diff asks for the diff between a and b ("" for the defaults).
func (c *Client) Diff(ctx context.Context, cl Call, a, b string) (*model.DiffResult, error) {
	var out DiffResponse
	q := url.Values{"session": {cl.Session}}
	if a != "" {
		q.Set("from", a)
	}
	if b != "" {
		q.Set("to", b)
	}
	if err := c.Do(ctx, cl, "GET", "/v1/diff", q, nil, &out); err != nil {
		return nil, err
	}
	d := &model.DiffResult{SkippedNow: out.SkippedNow}
	f, err := parseDocID(out.From)
	if err != nil {
		return nil, err
	}
	t, err := parseDocID(out.To)
	if err != nil {
		return nil, err
	}
	d.From, d.To = f, t
	for _, j := range out.Files {
		c, err := j.change()
		if err != nil {
			return nil, err
		}
		d.Files = append(d.Files, model.FileDiff{Change: c, OldData: j.OldData, NewData: j.NewData})
	}
	return d, nil
}

// TurnsResult is Turns' results in one value.
type TurnsResult struct{ Turns, Redo []*model.Turn }

// Turns asks for the session's turns and those redo can bring back.
func (c *Client) Turns(ctx context.Context, cl Call) (*TurnsResult, error) {
	var out TurnsResponse
	if err := c.Do(ctx, cl, "GET", cl.sessionPath("turns"), nil, nil, &out); err != nil {
		return nil, err
	}
	t, err := TurnsOfJSON(out.Turns)
	if err != nil {
		return nil, err
	}
	r, err := TurnsOfJSON(out.Redo)
	return &TurnsResult{t, r}, err
}

// Show asks for a snapshot.
func (c *Client) Show(ctx context.Context, cl Call, id string) (*model.SnapshotInfo, error) {
	var out ShowResponse
	if err := c.Do(ctx, cl, "GET", "/v1/snapshots/"+url.PathEscape(id), url.Values{"session": {cl.Session}}, nil, &out); err != nil {
		return nil, err
	}
	h, err := parseDocID(out.ID)
	if err != nil {
		return nil, err
	}
	info := &model.SnapshotInfo{ID: h, Files: out.Files, Bytes: out.Bytes, Partial: out.Partial}
	for _, pe := range out.Entries {
		e, err := pe.Entry.entry()
		if err != nil {
			return nil, err
		}
		info.Entries = append(info.Entries, model.PathEntry{Path: pe.Path, Entry: *e})
	}
	if info.Turns, err = TurnsOfJSON(out.Turns); err != nil {
		return nil, err
	}
	return info, nil
}

// Sessions asks for the store's sessions (nil for none).
func (c *Client) Sessions(ctx context.Context, cl Call) ([]model.SessionInfo, error) {
	var out SessionsResponse
	if err := c.Do(ctx, cl, "GET", "/v1/sessions", nil, nil, &out); err != nil {
		return nil, err
	}
	if len(out.Sessions) == 0 {
		return nil, nil // none: nil
	}
	return out.Sessions, nil
}

// Verify runs a verify. When it finds damage, the error wraps
// model.ErrVerify and the result lists the damage.
func (c *Client) Verify(ctx context.Context, cl Call) (*model.VerifyResult, error) {
	var out model.VerifyResult
	if err := c.Do(ctx, cl, "POST", "/v1/verify", nil, struct{}{}, &out); err != nil {
		var ve *verifyError
		if errors.As(err, &ve) && ve.res != nil {
			return ve.res, err
		}
		return nil, err
	}
	if len(out.Problems) == 0 {
		out.Problems = nil
	}
	return &out, nil
}

// GC runs a gc.
func (c *Client) GC(ctx context.Context, cl Call, o model.GCOptions) (*model.GCResult, error) {
	var out model.GCResult
	req := GCRequest{Keep: o.Keep, OlderThanSeconds: int64(o.OlderThan / time.Second), DryRun: o.DryRun}
	if err := c.Do(ctx, cl, "POST", "/v1/gc", nil, req, &out); err != nil {
		return nil, err
	}
	if len(out.Checkpoints) == 0 {
		out.Checkpoints = nil
	}
	return &out, nil
}

// Info asks for the store's figures.
func (c *Client) Info(ctx context.Context, cl Call) (*model.Info, error) {
	var out model.Info
	if err := c.Do(ctx, cl, "GET", "/v1/info", nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// AllTurns asks for every session with its turns.
func (c *Client) AllTurns(ctx context.Context, cl Call) ([]model.SessionTurns, error) {
	var out AllTurnsResponse
	if err := c.Do(ctx, cl, "GET", "/v1/turns", nil, nil, &out); err != nil {
		return nil, err
	}
	list := make([]model.SessionTurns, 0, len(out.Sessions))
	for _, s := range out.Sessions {
		st := model.SessionTurns{SessionInfo: s.Session}
		var err error
		if st.Turns, err = TurnsOfJSON(s.Turns); err != nil {
			return nil, err
		}
		if st.Redo, err = TurnsOfJSON(s.Redo); err != nil {
			return nil, err
		}
		list = append(list, st)
	}
	return list, nil
}

// TurnChanges asks what turn n changed, with both contents if content.
func (c *Client) TurnChanges(ctx context.Context, cl Call, n int, content bool) (*model.TurnChanges, error) {
	var out TurnChangesResponse
	path := cl.sessionPath("turns") + "/" + strconv.Itoa(n)
	if err := c.Do(ctx, cl, "GET", path, map[string][]string{"content": {strconv.FormatBool(content)}}, nil, &out); err != nil {
		return nil, err
	}
	t, err := out.Turn.turn()
	if err != nil {
		return nil, err
	}
	tc := &model.TurnChanges{Turn: t, Undone: out.Undone, SkippedNow: out.SkippedNow}
	for _, j := range out.Files {
		c, err := j.change()
		if err != nil {
			return nil, err
		}
		tc.Files = append(tc.Files, model.FileDiff{Change: c, OldData: j.OldData, NewData: j.NewData})
	}
	return tc, nil
}

// Unprotected asks which changes of turns an undo cannot revert.
func (c *Client) Unprotected(ctx context.Context, cl Call, turns []*model.Turn) (map[int][]string, error) {
	var out UnprotectedResponse
	req := UnprotectedRequest{Turns: NewTurnsJSON(turns)}
	if err := c.Do(ctx, cl, "POST", "/v1/unprotected", nil, req, &out); err != nil {
		return nil, err
	}
	if out.Unprotected == nil {
		out.Unprotected = map[int][]string{}
	}
	return out.Unprotected, nil
}

// Recover runs a recover.
func (c *Client) Recover(ctx context.Context, cl Call, rollback bool) (*model.RecoverResult, error) {
	var out RecoverResponse
	if err := c.Do(ctx, cl, "POST", "/v1/recover", nil, RecoverRequest{Rollback: rollback}, &out); err != nil {
		return nil, err
	}
	res := &model.RecoverResult{Found: out.Found, RolledBack: out.RolledBack, Restored: out.Restored, Deleted: out.Deleted,
		Created: out.Created, Kept: out.Kept}
	for _, l := range []*[]string{&res.Restored, &res.Deleted, &res.Created} {
		if len(*l) == 0 {
			*l = nil
		}
	}
	if len(res.Kept) == 0 {
		res.Kept = nil
	}
	return res, nil
}

// Checkpoints asks for the store's checkpoints.
func (c *Client) Checkpoints(ctx context.Context, cl Call) ([]model.Checkpoint, error) {
	var out CheckpointsResponse
	if err := c.Do(ctx, cl, "GET", "/v1/checkpoints", nil, nil, &out); err != nil {
		return nil, err
	}
	for i := range out.Checkpoints {
		out.Checkpoints[i].Time = out.Checkpoints[i].Time.In(time.Local)
	}
	return out.Checkpoints, nil
}

// Op runs an operation another package added (POST /v1/ops/{name}).
func (c *Client) Op(ctx context.Context, cl Call, name string, body, out any) error {
	return c.Do(ctx, cl, "POST", "/v1/ops/"+url.PathEscape(name), url.Values{"session": {cl.Session}}, body, out)
}
