package turnback

// A view whose session the daemon picks (PickLatest): the CLI's
// commands that name no session work on the one LatestSession picks,
// and through a daemon asking for the session list first costs a round
// trip. The view's first request carries daemon.PickHeader instead: the
// daemon picks the session, runs the request on it and names it in the
// answer (daemon.PickedHeader; internal/daemon serves both). An
// ambiguous pick is that request's error.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/turnback/turnback/watch/daemon"
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
	v := h.Get(daemon.PickedHeader)
	if v == "" || !rm.pickPending() {
		return
	}
	data, err := base64.StdEncoding.DecodeString(v)
	var s SessionInfo
	if err == nil && json.Unmarshal(data, &s) == nil && s.Name != "" {
		rm.picked(s)
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
