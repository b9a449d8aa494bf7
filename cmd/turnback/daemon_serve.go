package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/daemons"
	"github.com/turnback/turnback/watch/daemon"
)

// served is one forwarded command being run by the watch daemon.
type served struct {
	h   *daemons.Handler
	req daemon.Request
}

// view returns the Repo a forwarded command works on.
func (s *served) view(o turnback.Options) (*turnback.Repo, error) { return s.h.View(s.req, o) }

// daemonHandler runs the commands the daemon srv is sent through
// execute, in this process, on repo.
func daemonHandler(srv *daemon.Server, repo *turnback.Repo) daemon.Handler {
	h := &daemons.Handler{Srv: srv, Repo: repo}
	h.Exec = func(ctx context.Context, req daemon.Request, getenv func(string) string, stdout, stderr io.Writer) int {
		return execute(ctx, &globals{stdout: stdout, stderr: stderr, args: req.Args, getenv: getenv, cwd: req.Cwd,
			stdin: bytes.NewReader(nil), outTTY: req.OutTTY, errTTY: req.ErrTTY, served: &served{h: h, req: req}})
	}
	return h
}

// forwardedExit is returned by globals.openRepo when the daemon ran the
// command: its output has been written; the process exits with code.
type forwardedExit struct{ code int }

func (e forwardedExit) Error() string {
	return fmt.Sprintf("exit %d (run by the watch daemon)", e.code)
}

// forward runs the command through the watch daemon of storeDir, if one
// runs (see daemons.Forward); ok is false when none ran it.
func (g *globals) forward(ctx context.Context, workTree, storeDir string) (code int, ok bool) {
	cwd, err := g.getwd()
	if err != nil {
		cwd = workTree
	}
	req := daemon.Request{Args: g.args, Cwd: cwd, Env: daemon.ForwardedEnv(),
		WorkTree: workTree, Store: storeDir, OutTTY: g.outTTY, ErrTTY: g.errTTY}
	return daemons.Forward(ctx, storeDir, req, g.stdout, g.stderr, g.quiet)
}
