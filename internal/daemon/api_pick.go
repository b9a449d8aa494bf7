package daemon

// A request that asks the daemon to pick its session (the root's
// PickLatest views send wd.PickHeader): the daemon picks the one
// LatestSession picks, runs the request on it and names it in the
// answer (wd.PickedHeader).

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/turnback/turnback"
	wd "github.com/turnback/turnback/watch/daemon"
)

// pickFor has the request r run on the session LatestSession picks
// when it asks for that, and names it in w's header.
func (a *apiServer) pickFor(w http.ResponseWriter, r *http.Request) (*apiServer, error) {
	mode := r.Header.Get(wd.PickHeader)
	if mode != "latest" && mode != "latest-reading" {
		return a, nil
	}
	v, err := a.view(turnback.DefaultSession, "")
	if err != nil {
		return nil, err
	}
	s, err := v.LatestSession(r.Context())
	if mode == "latest-reading" && errors.As(err, new(*turnback.AmbiguousSessionError)) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	w.Header().Set(wd.PickedHeader, base64.StdEncoding.EncodeToString(data))
	c := *a
	c.pick = s.Name
	return &c, nil
}
