package turnback

// Operations other packages add to what a daemon serves (package
// internal/daemonop): POST /v1/ops/{name}?session=NAME, on the daemon's
// unix socket only, since a request may carry the caller's
// credentials. They are not in the OpenAPI document. internal/daemon
// serves them; this is the caller's side (daemonop.Call).

import (
	"context"
	"errors"

	"github.com/turnback/turnback/internal/api"
	"github.com/turnback/turnback/internal/daemonop"
)

// errOpNotLocal: an operation asked of a Repo this process holds (Call
// is for served Repos; the caller runs it itself).
var errOpNotLocal = errors.New("turnback: the operation runs on a Repo a daemon serves")

func init() { daemonop.Call = callOp }

// callOp is daemonop.Call.
func callOp(ctx context.Context, repo any, name string, body, out any, local func(repo any) error) error {
	r := repo.(*Repo)
	rm, ok := r.be.(*remoteRepo)
	if !ok {
		return errOpNotLocal
	}
	_, err := call(ctx, rm, func() (struct{}, error) {
		return struct{}{}, rm.c.api.Op(ctx, api.Call{Session: rm.opts.Session}, name, body, out)
	}, func(l *Repo) (struct{}, error) { return struct{}{}, local(l) })
	return err
}
