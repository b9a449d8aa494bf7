package served

// A view whose session the daemon picks (turnback.Repo.PickLatest): the
// CLI's commands that name no session work on the one LatestSession
// picks, and through a daemon asking for the session list first costs a
// round trip. The view's first request carries daemon.PickHeader
// instead: the daemon picks the session, runs the request on it and
// names it in the answer (daemon.PickedHeader; internal/daemon serves
// both). An ambiguous pick is that request's error.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/watch/daemon"
)

// pickState is a PickLatest view's pick.
type pickState struct {
	onPick  func(model.SessionInfo)
	reading bool
	done    bool
}

// Pick makes the daemon pick v's session in v's first operation; onPick
// and reading are PickLatest's.
func (v *View) Pick(reading bool, onPick func(model.SessionInfo)) {
	v.pick = &pickState{onPick: onPick, reading: reading}
}

// picked records the session a daemon picked: the view works on it from
// now on.
func (v *View) picked(s model.SessionInfo) {
	v.pick.done = true
	v.opts.Session = s.Name
	v.opts.Picked(s.Name)
	if v.pick.onPick != nil {
		v.pick.onPick(s)
	}
}

// pickPending reports whether the view's next request carries the pick.
func (v *View) pickPending() bool { return v.pick != nil && !v.pick.done }

// readPicked takes the picked session from an answer's header.
func (v *View) readPicked(h http.Header) {
	val := h.Get(daemon.PickedHeader)
	if val == "" || !v.pickPending() {
		return
	}
	data, err := base64.StdEncoding.DecodeString(val)
	var s model.SessionInfo
	if err == nil && json.Unmarshal(data, &s) == nil && s.Name != "" {
		v.picked(s)
	}
}

// pickLocal picks on l, the store this process opened once the daemon
// was gone before it picked.
func (v *View) pickLocal(ctx context.Context, l Local) error {
	if !v.pickPending() {
		return nil
	}
	s, err := l.LatestSession(ctx)
	if v.pick.reading && errors.As(err, new(*model.AmbiguousSessionError)) {
		err = nil
	}
	if err != nil {
		return err
	}
	v.picked(s)
	return nil
}
