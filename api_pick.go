package turnback

// A view whose session the daemon picks (PickLatest): the CLI's
// commands that name no session work on the one LatestSession picks,
// and through a daemon asking for the session list first costs a round
// trip. The view's first request carries pickHeader instead: the daemon
// picks the session, runs the request on it and names it in the answer
// (pickedHeader). An ambiguous pick is that request's error.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
)

const (
	// pickHeader ("latest"), on a request, has the daemon run it on the
	// session LatestSession picks, whatever session it names;
	// "latest-reading" is the same, but another session working now is
	// no error: the request runs on the session picked all the same.
	pickHeader = "Turnback-Pick-Session"
	// pickedHeader, on its answer, is that session: a SessionJSON,
	// base64.
	pickedHeader = "Turnback-Picked-Session"
)

// pickState is a PickLatest view's pick, shared by its backend.
type pickState struct {
	onPick  func(SessionInfo)
	reading bool
	done    bool
}

// PickLatest returns a view of r, with o, on the session LatestSession
// picks. On a Repo this process holds, it picks at once. On one a
// daemon serves, the daemon picks it in the view's first operation,
// which costs no request of its own; until then the view's Session is
// o.Session. Either way onPick (if set) is called with the session
// picked before the operation that picked it returns, and an ambiguous
// pick (*AmbiguousSessionError) is the error of PickLatest or of that
// operation; with reading (a command that only reads, which never
// refuses) it is none: the view works on the session picked.
func (r *Repo) PickLatest(ctx context.Context, o Options, reading bool, onPick func(SessionInfo)) (*Repo, error) {
	if _, ok := r.be.(*remoteRepo); !ok {
		s, err := r.LatestSession(ctx)
		if reading && errors.As(err, new(*AmbiguousSessionError)) {
			err = nil
		}
		if err != nil {
			return nil, err
		}
		if onPick != nil {
			onPick(s)
		}
		o.Session = s.Name
		return r.View(o)
	}
	v, err := r.View(o)
	if err != nil {
		return nil, err
	}
	v.be.(*remoteRepo).pick = &pickState{onPick: onPick, reading: reading}
	return v, nil
}

// picked records the session a daemon picked: the view works on it from
// now on.
func (rm *remoteRepo) picked(s SessionInfo) {
	rm.pick.done = true
	rm.opts.Session = s.Name
	rm.r.session = s.Name
	rm.r.opts.Session = s.Name
	if rm.pick.onPick != nil {
		rm.pick.onPick(s)
	}
}

// pickPending reports whether the view's next request carries the pick.
func (rm *remoteRepo) pickPending() bool { return rm.pick != nil && !rm.pick.done }

// readPicked takes the picked session from an answer's header.
func (rm *remoteRepo) readPicked(h http.Header) {
	v := h.Get(pickedHeader)
	if v == "" || !rm.pickPending() {
		return
	}
	data, err := base64.StdEncoding.DecodeString(v)
	var s SessionJSON
	if err == nil && json.Unmarshal(data, &s) == nil && s.Name != "" {
		rm.picked(s.info())
	}
}

// pickLocal picks on l, a Repo this process opened once the daemon was
// gone before it picked.
func (rm *remoteRepo) pickLocal(ctx context.Context, l *Repo) error {
	if !rm.pickPending() {
		return nil
	}
	s, err := l.LatestSession(ctx)
	if rm.pick.reading && errors.As(err, new(*AmbiguousSessionError)) {
		err = nil
	}
	if err != nil {
		return err
	}
	rm.picked(s)
	return nil
}

// pickFor has the request r run on the session LatestSession picks
// when it asks for that, and names it in w's header.
func (a *apiServer) pickFor(w http.ResponseWriter, r *http.Request) (*apiServer, error) {
	mode := r.Header.Get(pickHeader)
	if mode != "latest" && mode != "latest-reading" {
		return a, nil
	}
	v, err := a.view(DefaultSession, "")
	if err != nil {
		return nil, err
	}
	s, err := v.LatestSession(r.Context())
	if mode == "latest-reading" && errors.As(err, new(*AmbiguousSessionError)) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(sessionJSON(s))
	if err != nil {
		return nil, err
	}
	w.Header().Set(pickedHeader, base64.StdEncoding.EncodeToString(data))
	c := *a
	c.pick = s.Name
	return &c, nil
}
