package daemon

// The HTTP/JSON API (docs/api.md): NewHandler serves a Repo's
// operations, one JSON document in and out.

import (
	"context"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/api"
	wd "github.com/turnback/turnback/watch/daemon"
)

// MaxRequestBody bounds the body of an API request (413 beyond).
const MaxRequestBody = 1 << 20

// apiLockWait is how long an API request waits for the operation of
// another client (the request's context ends it sooner).
const apiLockWait = time.Hour

// endGrace is the least a request waits for another operation: one that
// has answered still ends (and unlocks) after its answer left.
const endGrace = 200 * time.Millisecond

//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI returns the OpenAPI 3.1 document of the HTTP API (served at
// /v1/openapi.json).
func OpenAPI() []byte { return slices.Clone(openAPIDoc) }

// apiRoute is one route of the API.
type apiRoute struct {
	method, pattern string
	serve           func(a *apiServer, w http.ResponseWriter, r *http.Request) (any, error)
}

// apiRoutes are the routes NewHandler serves (the OpenAPI document lists
// the same: TestOpenAPIRoutes).
var apiRoutes = []apiRoute{
	{"POST", "/v1/sessions/{session}/snap", (*apiServer).snap},
	{"POST", "/v1/sessions/{session}/end", (*apiServer).end},
	{"POST", "/v1/sessions/{session}/undo", (*apiServer).undo},
	{"POST", "/v1/sessions/{session}/redo", (*apiServer).redo},
	{"GET", "/v1/sessions/{session}/turns", (*apiServer).turns},
	{"GET", "/v1/sessions/{session}/turns/{n}", (*apiServer).turnChanges},
	{"GET", "/v1/turns", (*apiServer).allTurns},
	{"POST", "/v1/unprotected", (*apiServer).unprotected},
	{"POST", "/v1/recover", (*apiServer).recover},
	{"GET", "/v1/sessions", (*apiServer).sessions},
	{"GET", "/v1/checkpoints", (*apiServer).checkpointList},
	{"POST", "/v1/restore", (*apiServer).restore},
	{"GET", "/v1/status", (*apiServer).status},
	{"GET", "/v1/diff", (*apiServer).diff},
	{"GET", "/v1/snapshots/{id}", (*apiServer).show},
	{"POST", "/v1/verify", (*apiServer).verify},
	{"POST", "/v1/gc", (*apiServer).gc},
	{"GET", "/v1/info", (*apiServer).info},
	{"GET", "/v1/health", (*apiServer).health},
	{"GET", "/v1/openapi.json", nil},
}

type apiServer struct {
	repo  *turnback.Repo
	locks *sessionLocks
	// progress and restoreProgress count the work of a streamed
	// request (api_progress.go); nil for the others.
	progress        *turnback.Progress
	restoreProgress *turnback.RestoreProgress
	step            func(name string) // reports a restore's steps
	now             func() time.Time  // the request's clock (testNowHeader)
	pick            string            // the session picked for the request (api_pick.go)
	// anySession: the request takes a session the store has no
	// record of as one without turns (wd.UnknownSessionHeader).
	anySession bool
	// lockWait bounds the request's wait for another client's
	// operation (wd.LockWaitHeader); 0 means apiLockWait.
	lockWait time.Duration
}

// errWrongDaemon: the request is for another store or folder.
var errWrongDaemon = errors.New("turnback: api: this daemon serves another store or folder")

// forRequest returns the apiServer that serves r: a, or a copy with the
// clock r names.
func (a *apiServer) forRequest(r *http.Request) (*apiServer, error) {
	for h, want := range map[string]string{wd.StoreHeader: a.repo.StoreDir(), wd.WorkTreeHeader: a.repo.WorkTree()} {
		if v := r.Header.Get(h); v != "" {
			p, err := base64.StdEncoding.DecodeString(v)
			if err != nil {
				return nil, badRequest{h + ": want base64"}
			}
			if !sameDir(string(p), want) {
				return nil, errWrongDaemon
			}
		}
	}
	s := *a
	s.anySession = r.Header.Get(wd.UnknownSessionHeader) == "empty"
	if v := r.Header.Get(wd.TestNowHeader); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return nil, badRequest{wd.TestNowHeader + ": want an RFC 3339 time, got " + strconv.Quote(v)}
		}
		s.now = func() time.Time { return t }
	}
	if v := r.Header.Get(wd.LockWaitHeader); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, badRequest{wd.LockWaitHeader + ": want a duration of 0 or more, got " + strconv.Quote(v)}
		}
		// At least endGrace: the previous operation's answer leaves
		// before it lets go of the store, and its client may already
		// have sent the next request.
		s.lockWait = min(max(d, endGrace), apiLockWait)
	}
	return &s, nil
}

// sessionLocks serialize the operations of one session that change its
// stacks, so that the turns an undo or redo reports are its own.
type sessionLocks struct {
	mu   sync.Mutex
	sess map[string]*sync.Mutex
}

// NewHandler returns the HTTP API (docs/api.md) over repo: every
// request runs on a view of repo (View) for the session it names. The
// daemon serves it on its socket.
func NewHandler(repo *turnback.Repo) http.Handler {
	a := &apiServer{repo: repo, locks: &sessionLocks{sess: map[string]*sync.Mutex{}}}
	mux := http.NewServeMux()
	for _, rt := range append(apiRoutes[:len(apiRoutes):len(apiRoutes)], opsRoute) {
		mux.HandleFunc(rt.pattern, func(w http.ResponseWriter, r *http.Request) {
			if r.Method != rt.method && !(rt.method == "GET" && r.Method == "HEAD") {
				w.Header().Set("Allow", rt.method)
				writeAPIError(w, http.StatusMethodNotAllowed, &api.ErrorResponse{Error: "turnback: api: " + r.Method + " not allowed; use " + rt.method, ExitCode: 2, Kind: "bad_request"})
				return
			}
			if rt.serve == nil {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(openAPIDoc)
				return
			}
			a, err := a.forRequest(r)
			if err == nil {
				a, err = a.pickFor(w, r)
			}
			if err != nil {
				status, doc := apiErrorDoc(err)
				writeAPIError(w, status, doc)
				return
			}
			if wantsStream(r) {
				a.stream(rt, w, r)
				return
			}
			out, err := rt.serve(a, w, r)
			if err != nil {
				status, doc := requestErrorDoc(r, err)
				writeAPIError(w, status, doc)
				return
			}
			writeAPIJSON(w, http.StatusOK, out)
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeAPIError(w, http.StatusNotFound, &api.ErrorResponse{Error: "turnback: api: no such endpoint: " + r.URL.Path, ExitCode: 2, Kind: "not_found"})
	})
	return mux
}

// view returns the view of the session named (exactly: no prefix), ""
// meaning "default".
func (a *apiServer) view(name, agent string) (*turnback.Repo, error) {
	if name == "" {
		name = turnback.DefaultSession
	}
	if a.pick != "" {
		name = a.pick
	}
	if err := turnback.ValidSession(name); err != nil {
		return nil, badRequest{strings.TrimPrefix(err.Error(), "turnback: ")}
	}
	o := a.repo.Options()
	o.Session, o.LockWait, o.Holder, o.OnWait, o.Progress, o.RestoreProgress = name, apiLockWait, "turnback API request", nil, a.progress, a.restoreProgress
	if a.lockWait != 0 {
		o.LockWait = a.lockWait
	}
	if agent != "" {
		o.Agent = agent
	}
	if a.now != nil {
		o.Now = a.now
	}
	v, err := a.repo.View(o)
	if err == nil && a.step != nil {
		v.ReportSteps(a.step)
	}
	return v, err
}

// known returns an error wrapping turnback.ErrNoSession when the store
// has no record of v's session: a request that names a session, other
// than snap's, names one that exists. "default" always does, and so
// does the session the daemon picked; a client may ask for the
// library's rule instead (anySession).
func (a *apiServer) known(ctx context.Context, v *turnback.Repo) error {
	name := v.Session()
	if a.anySession || a.pick != "" || name == turnback.DefaultSession {
		return nil
	}
	list, err := v.Sessions(ctx)
	if err != nil {
		return err
	}
	for _, s := range list {
		if s.Name == name {
			return nil
		}
	}
	return fmt.Errorf("%w: %s", turnback.ErrNoSession, name)
}

// lockSession serializes the stack-changing requests of one session.
func (a *apiServer) lockSession(name string) func() {
	a.locks.mu.Lock()
	m := a.locks.sess[name]
	if m == nil {
		m = &sync.Mutex{}
		a.locks.sess[name] = m
	}
	a.locks.mu.Unlock()
	m.Lock()
	return m.Unlock
}

func (a *apiServer) snap(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.SnapRequest
	if err := decode(w, r, &req); err != nil {
		return nil, err
	}
	v, err := a.view(r.PathValue("session"), req.Agent)
	if err != nil {
		return nil, err
	}
	defer a.lockSession(v.Session())()
	res, err := v.SnapWith(r.Context(), turnback.SnapOptions{Message: req.Message, Meta: req.Meta, TakeNotice: req.TakeNotice})
	if err != nil {
		return nil, err
	}
	return snapResponse(res), nil
}

func (a *apiServer) end(w http.ResponseWriter, r *http.Request) (any, error) {
	var req struct{}
	if err := decode(w, r, &req); err != nil {
		return nil, err
	}
	v, err := a.view(r.PathValue("session"), "")
	if err != nil {
		return nil, err
	}
	if err := a.known(r.Context(), v); err != nil {
		return nil, err
	}
	defer a.lockSession(v.Session())()
	res, err := v.End(r.Context())
	if err != nil {
		return nil, err
	}
	return snapResponse(res), nil
}

func (a *apiServer) undo(w http.ResponseWriter, r *http.Request) (any, error) {
	return a.undoRedo(w, r, "undo")
}

func (a *apiServer) redo(w http.ResponseWriter, r *http.Request) (any, error) {
	return a.undoRedo(w, r, "redo")
}

// undoRedo runs an undo or redo and reports the turns it moved
// (turnback.RestoreResult.Moved; a dry run's: would move).
func (a *apiServer) undoRedo(w http.ResponseWriter, r *http.Request, op string) (any, error) {
	var ureq api.UndoRequest
	var rreq api.RedoRequest
	var err error
	if op == "undo" {
		err = decode(w, r, &ureq)
	} else {
		err = decode(w, r, &rreq)
		ureq.Count = rreq.Count
	}
	if err != nil {
		return nil, err
	}
	if ureq.Count < 0 {
		return nil, badRequest{fmt.Sprintf("count must be at least 1, got %d", ureq.Count)}
	}
	if err := ureq.Merge.Set(string(ureq.Merge)); err != nil {
		return nil, badRequest{strings.TrimPrefix(err.Error(), "turnback: ")}
	}
	n := max(ureq.Count, 1)
	v, err := a.view(r.PathValue("session"), "")
	if err != nil {
		return nil, err
	}
	if err := a.known(r.Context(), v); err != nil {
		return nil, err
	}
	defer a.lockSession(v.Session())()
	ctx := r.Context()
	var res *turnback.RestoreResult
	if op == "undo" {
		res, err = v.Undo(ctx, n, turnback.UndoOptions{Force: ureq.Force, Paths: ureq.Paths, DryRun: ureq.DryRun, Merge: ureq.Merge})
	} else {
		res, err = v.Redo(ctx, n, turnback.RedoOptions{Force: rreq.Force, DryRun: rreq.DryRun})
	}
	if errors.Is(err, turnback.ErrConflict) {
		return nil, opConflict{op, err}
	}
	if err != nil {
		return nil, err
	}
	return restoreResponse(op, res), nil
}

func (a *apiServer) turns(w http.ResponseWriter, r *http.Request) (any, error) {
	v, err := a.view(r.PathValue("session"), "")
	if err != nil {
		return nil, err
	}
	if err := a.known(r.Context(), v); err != nil {
		return nil, err
	}
	turns, redo, err := v.Turns(r.Context())
	if err != nil {
		return nil, err
	}
	return &api.TurnsResponse{Session: v.Session(), Turns: api.NewTurnsJSON(turns), Redo: api.NewTurnsJSON(redo)}, nil
}

func (a *apiServer) sessions(w http.ResponseWriter, r *http.Request) (any, error) {
	v, err := a.view("", "")
	if err != nil {
		return nil, err
	}
	list, err := v.Sessions(r.Context())
	if err != nil {
		return nil, err
	}
	return &api.SessionsResponse{Sessions: nonNil(list)}, nil
}

func (a *apiServer) restore(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.RestoreRequest
	if err := decode(w, r, &req); err != nil {
		return nil, err
	}
	if req.ID == "" {
		return nil, badRequest{`"id" is required`}
	}
	v, err := a.view(req.Session, "")
	if err != nil {
		return nil, err
	}
	res, err := v.Restore(r.Context(), req.ID, turnback.RestoreOptions{DryRun: req.DryRun})
	if errors.Is(err, turnback.ErrConflict) {
		return nil, opConflict{"restore", err}
	}
	if err != nil {
		return nil, err
	}
	return restoreResponse("restore", res), nil
}

func (a *apiServer) status(w http.ResponseWriter, r *http.Request) (any, error) {
	v, err := a.view(r.URL.Query().Get("session"), "")
	if err != nil {
		return nil, err
	}
	var o turnback.StatusOptions
	switch r.URL.Query().Get("ignored") {
	case "", "false", "0":
	case "true", "1":
		o.Ignored = true
	default:
		return nil, badRequest{`"ignored" must be true or false`}
	}
	st, err := v.StatusWith(r.Context(), o)
	if err != nil {
		return nil, err
	}
	out := &api.StatusResponse{Base: idOrEmpty(st.Base), Current: idOrEmpty(st.Current), Changes: []api.ChangeJSON{}, Stats: st.Stats, Watch: st.Watch, Ignored: st.Ignored, SkippedNow: st.SkippedNow}
	for _, c := range st.Changes {
		out.Changes = append(out.Changes, changeJSON(c))
	}
	return out, nil
}

func (a *apiServer) diff(w http.ResponseWriter, r *http.Request) (any, error) {
	q := r.URL.Query()
	if q.Get("from") == "" && q.Get("to") != "" {
		return nil, badRequest{`"to" needs "from"`}
	}
	v, err := a.view(q.Get("session"), "")
	if err != nil {
		return nil, err
	}
	res, err := v.Compare(r.Context(), q.Get("from"), q.Get("to"))
	if err != nil {
		return nil, err
	}
	out := &api.DiffResponse{From: idOrEmpty(res.From), To: idOrEmpty(res.To), Files: []api.FileDiffJSON{}, SkippedNow: res.SkippedNow}
	for _, d := range res.Files {
		out.Files = append(out.Files, api.FileDiffJSON{ChangeJSON: changeJSON(d.Change), OldData: d.OldData, NewData: d.NewData})
	}
	return out, nil
}

func (a *apiServer) show(w http.ResponseWriter, r *http.Request) (any, error) {
	v, err := a.view(r.URL.Query().Get("session"), "")
	if err != nil {
		return nil, err
	}
	info, err := v.Show(r.Context(), r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	out := &api.ShowResponse{ID: info.ID.String(), Files: info.Files, Bytes: info.Bytes, Entries: []api.PathEntryJSON{}, Turns: api.NewTurnsJSON(info.Turns),
		Partial: info.Partial}
	for _, e := range info.Entries {
		out.Entries = append(out.Entries, api.PathEntryJSON{Path: e.Path, Entry: *entryJSON(&e.Entry)})
	}
	return out, nil
}

func (a *apiServer) verify(w http.ResponseWriter, r *http.Request) (any, error) {
	var req struct{}
	if err := decode(w, r, &req); err != nil {
		return nil, err
	}
	v, err := a.view("", "")
	if err != nil {
		return nil, err
	}
	res, err := v.Verify(r.Context())
	if errors.Is(err, turnback.ErrVerify) && res != nil {
		res.Problems = nonNil(res.Problems)
		return nil, verifyFailed{res: res, err: err}
	}
	if err != nil {
		return nil, err
	}
	res.Problems = nonNil(res.Problems)
	return res, nil
}

func (a *apiServer) gc(w http.ResponseWriter, r *http.Request) (any, error) {
	var req api.GCRequest
	if err := decode(w, r, &req); err != nil {
		return nil, err
	}
	v, err := a.view("", "")
	if err != nil {
		return nil, err
	}
	res, err := v.GC(r.Context(), turnback.GCOptions{Keep: req.Keep, OlderThan: time.Duration(req.OlderThanSeconds) * time.Second, DryRun: req.DryRun})
	if err != nil {
		return nil, err
	}
	res.Checkpoints = nonNil(res.Checkpoints)
	return res, nil
}

func (a *apiServer) info(w http.ResponseWriter, r *http.Request) (any, error) {
	v, err := a.view("", "")
	if err != nil {
		return nil, err
	}
	return v.Info(r.Context())
}

func (a *apiServer) health(w http.ResponseWriter, r *http.Request) (any, error) {
	return &api.HealthResponse{OK: true, API: "v1", WorkTree: a.repo.WorkTree(), Store: a.repo.StoreDir(), PID: os.Getpid()}, nil
}
