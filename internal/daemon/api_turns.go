package daemon

// The routes that serve what the CLI shows besides the operations of
// api_server.go: every session's turns (log --all), what one turn
// changed (show @N, diff @N), the changes an undo cannot revert (log),
// the checkpoints, and recover.

import (
	"net/http"
	"strconv"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/api"
)

func (a *apiServer) allTurns(w http.ResponseWriter, r *http.Request) (any, error) {
	v, err := a.view("", "")
	if err != nil {
		return nil, err
	}
	all, err := v.AllTurns(r.Context())
	if err != nil {
		return nil, err
	}
	out := &api.AllTurnsResponse{Sessions: []api.SessionTurnsJSON{}}
	for _, s := range all {
		out.Sessions = append(out.Sessions, api.SessionTurnsJSON{Session: s.SessionInfo, Turns: api.NewTurnsJSON(s.Turns), Redo: api.NewTurnsJSON(s.Redo)})
	}
	return out, nil
}

func (a *apiServer) turnChanges(w http.ResponseWriter, r *http.Request) (any, error) {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 {
		return nil, badRequest{"turn number must be a positive number, got " + strconv.Quote(r.PathValue("n"))}
	}
	content := false
	if c := r.URL.Query().Get("content"); c != "" {
		if content, err = strconv.ParseBool(c); err != nil {
			return nil, badRequest{`"content" must be true or false`}
		}
	}
	v, err := a.view(r.PathValue("session"), "")
	if err != nil {
		return nil, err
	}
	if err := a.known(r.Context(), v); err != nil {
		return nil, err
	}
	var tc *turnback.TurnChanges
	if content {
		tc, err = v.DiffTurn(r.Context(), n)
	} else {
		tc, err = v.ShowTurn(r.Context(), n)
	}
	if err != nil {
		return nil, err
	}
	out := &api.TurnChangesResponse{Turn: api.NewTurnJSON(tc.Turn), Undone: tc.Undone, Files: []api.FileDiffJSON{}, SkippedNow: tc.SkippedNow}
	for _, d := range tc.Files {
		out.Files = append(out.Files, api.FileDiffJSON{ChangeJSON: changeJSON(d.Change), OldData: d.OldData, NewData: d.NewData})
	}
	return out, nil
}

func (a *apiServer) unprotected(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.UnprotectedRequest
	if err := decode(w, r, &req); err != nil {
		return nil, err
	}
	turns, err := api.TurnsOfJSON(req.Turns)
	if err != nil {
		return nil, badRequest{err.Error()}
	}
	v, err := a.view("", "")
	if err != nil {
		return nil, err
	}
	m, err := v.UnprotectedChanges(r.Context(), turns)
	if err != nil {
		return nil, err
	}
	return &api.UnprotectedResponse{Unprotected: m}, nil
}

func (a *apiServer) recover(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.RecoverRequest
	if err := decode(w, r, &req); err != nil {
		return nil, err
	}
	v, err := a.view("", "")
	if err != nil {
		return nil, err
	}
	res, err := v.Recover(r.Context(), req.Rollback)
	if err != nil {
		return nil, err
	}
	return &api.RecoverResponse{Found: res.Found, RolledBack: res.RolledBack, Restored: nonNil(res.Restored),
		Deleted: nonNil(res.Deleted), Created: nonNil(res.Created), Kept: nonNil(res.Kept)}, nil
}

func (a *apiServer) checkpointList(_ http.ResponseWriter, r *http.Request) (any, error) {
	v, err := a.view("", "")
	if err != nil {
		return nil, err
	}
	list, err := v.Checkpoints(r.Context())
	if err != nil {
		return nil, err
	}
	return &api.CheckpointsResponse{Checkpoints: append([]turnback.Checkpoint{}, list...)}, nil
}
