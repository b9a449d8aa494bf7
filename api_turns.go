package turnback

// The documents of the HTTP API's routes that serve what the CLI shows
// besides the operations: every session's turns (log --all), what
// one turn changed (show @N, diff @N), the changes an undo cannot revert
// (log), and recover: their documents, and the client side of them
// (internal/daemon serves them).

import (
	"context"
	"strconv"
)

// SessionTurnsJSON is one session with its turns (GET /v1/turns).
type SessionTurnsJSON struct {
	Session SessionInfo `json:"session"`
	Turns   []*TurnJSON `json:"turns"`
	Redo    []*TurnJSON `json:"redo"`
}

// AllTurnsResponse answers GET /v1/turns: every session, as
// GET /v1/sessions orders them, with its turns newest first.
type AllTurnsResponse struct {
	Sessions []SessionTurnsJSON `json:"sessions"`
}

// TurnChangesResponse answers GET /v1/sessions/{session}/turns/{n}:
// the paths the turn changed, with both contents when asked for
// (?content=true, base64 as in a diff).
type TurnChangesResponse struct {
	Turn   *TurnJSON      `json:"turn"`
	Undone bool           `json:"undone"`
	Files  []FileDiffJSON `json:"files"`
}

// UnprotectedRequest is the body of POST /v1/unprotected: turns as the
// API returns them (only "turn", "before" and "after" are read).
type UnprotectedRequest struct {
	Turns []*TurnJSON `json:"turns"`
}

// UnprotectedResponse answers POST /v1/unprotected: per turn number,
// the paths the turn changed whose earlier content no copy or
// reference holds (an undo cannot bring them back).
type UnprotectedResponse struct {
	Unprotected map[int][]string `json:"unprotected"`
}

// RecoverRequest is the body of POST /v1/recover.
type RecoverRequest struct {
	Rollback bool `json:"rollback,omitempty"`
}

// RecoverResponse answers POST /v1/recover (see RecoverResult).
type RecoverResponse struct {
	Found      bool       `json:"found"`
	RolledBack bool       `json:"rolled_back"`
	Restored   []string   `json:"restored"`
	Deleted    []string   `json:"deleted"`
	Created    []string   `json:"created"`
	Kept       []PathNote `json:"kept"`
}

// The client side: a daemon-served Repo's methods.

func (rm *remoteRepo) allTurns(ctx context.Context) ([]SessionTurns, error) {
	return call(ctx, rm, func() ([]SessionTurns, error) {
		var out AllTurnsResponse
		if err := rm.do(ctx, "GET", "/v1/turns", nil, nil, &out); err != nil {
			return nil, err
		}
		list := make([]SessionTurns, 0, len(out.Sessions))
		for _, s := range out.Sessions {
			st := SessionTurns{SessionInfo: s.Session}
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
	}, func(l *Repo) ([]SessionTurns, error) { return l.AllTurns(ctx) })
}

func (rm *remoteRepo) turnChanges(ctx context.Context, n int, content bool) (*TurnChanges, error) {
	return call(ctx, rm, func() (*TurnChanges, error) {
		var out TurnChangesResponse
		path := rm.sessionPath("turns") + "/" + strconv.Itoa(n)
		if err := rm.do(ctx, "GET", path, map[string][]string{"content": {strconv.FormatBool(content)}}, nil, &out); err != nil {
			return nil, err
		}
		t, err := out.Turn.turn()
		if err != nil {
			return nil, err
		}
		tc := &TurnChanges{Turn: t, Undone: out.Undone}
		for _, j := range out.Files {
			c, err := j.change()
			if err != nil {
				return nil, err
			}
			tc.Files = append(tc.Files, FileDiff{Change: c, OldData: j.OldData, NewData: j.NewData})
		}
		return tc, nil
	}, func(l *Repo) (*TurnChanges, error) {
		if content {
			return l.DiffTurn(ctx, n)
		}
		return l.ShowTurn(ctx, n)
	})
}

func (rm *remoteRepo) unprotectedChanges(ctx context.Context, turns []*Turn) (map[int][]string, error) {
	return call(ctx, rm, func() (map[int][]string, error) {
		var out UnprotectedResponse
		req := UnprotectedRequest{Turns: NewTurnsJSON(turns)}
		if err := rm.do(ctx, "POST", "/v1/unprotected", nil, req, &out); err != nil {
			return nil, err
		}
		if out.Unprotected == nil {
			out.Unprotected = map[int][]string{}
		}
		return out.Unprotected, nil
	}, func(l *Repo) (map[int][]string, error) { return l.UnprotectedChanges(ctx, turns) })
}

func (rm *remoteRepo) recover(ctx context.Context, rollback bool) (*RecoverResult, error) {
	if err := rm.writable(); err != nil {
		return nil, err
	}
	return call(ctx, rm, func() (*RecoverResult, error) {
		var out RecoverResponse
		if err := rm.do(ctx, "POST", "/v1/recover", nil, RecoverRequest{Rollback: rollback}, &out); err != nil {
			return nil, err
		}
		res := &RecoverResult{Found: out.Found, RolledBack: out.RolledBack, Restored: out.Restored, Deleted: out.Deleted,
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
	}, func(l *Repo) (*RecoverResult, error) { return l.Recover(ctx, rollback) })
}
