package daemon

// Operations other packages add to what a daemon serves (package
// internal/daemonop): POST /v1/ops/{name}?session=NAME, on the daemon's
// unix socket only, since a request may carry the caller's
// credentials. They are not in the OpenAPI document.

import (
	"encoding/json"
	"net"
	"net/http"

	"github.com/turnback/turnback/internal/daemonop"
)

// opsRoute serves the operations registered in package daemonop.
var opsRoute = apiRoute{"POST", "/v1/ops/{name}", (*apiServer).op}

func (a *apiServer) op(w http.ResponseWriter, r *http.Request) (any, error) {
	op, ok := daemonop.Lookup(r.PathValue("name"))
	addr, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || addr == nil || addr.Network() != "unix" {
		// Never on TCP: the same answer as for a path that is not served.
		return nil, errNoEndpoint{r.URL.Path}
	}
	var body json.RawMessage
	if err := decode(w, r, &body); err != nil {
		return nil, err
	}
	v, err := a.view(r.URL.Query().Get("session"), "")
	if err != nil {
		return nil, err
	}
	return op(r.Context(), v, body)
}

// errNoEndpoint: 404, kind not_found.
type errNoEndpoint struct{ path string }

func (e errNoEndpoint) Error() string { return "turnback: api: no such endpoint: " + e.path }
