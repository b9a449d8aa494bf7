package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/daemons"
	"github.com/turnback/turnback/watch/daemon"
)

// daemonHandler runs the commands a watch daemon is sent, in this
// process, on the daemon's open Repo.
type daemonHandler struct {
	srv  *daemon.Server
	repo *turnback.Repo
}

// served is one forwarded command being run by the daemon.
type served struct {
	h   *daemonHandler
	req daemon.Request
}

// Run runs a forwarded command as the CLI would have in the client.
func (h *daemonHandler) Run(ctx context.Context, req daemon.Request, stdout, stderr io.Writer) int {
	env := map[string]string{}
	for _, kv := range req.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	g := &globals{
		stdout: stdout,
		stderr: stderr,
		args:   req.Args,
		getenv: func(k string) string { return env[k] },
		cwd:    req.Cwd,
		stdin:  bytes.NewReader(nil),
		outTTY: req.OutTTY,
		errTTY: req.ErrTTY,
		served: &served{h: h, req: req},
	}
	code := execute(ctx, g)
	if why, ok := daemon.Stopping(ctx); ok && code != exitOK {
		// Cancelled by a hard stop: say why, after the command's own
		// "context canceled".
		_, _ = fmt.Fprintf(stderr, "turnback: the watch daemon is stopping (%s): it cancelled this command\n", why)
	}
	return code
}

// view returns the Repo a forwarded command works on.
func (s *served) view(o turnback.Options) (*turnback.Repo, error) {
	repo := s.h.repo
	if !daemons.SameDir(s.req.Store, repo.StoreDir()) {
		return nil, fmt.Errorf("turnback: the watch daemon serves store %s, not %s", repo.StoreDir(), s.req.Store)
	}
	if !daemons.SameDir(s.req.WorkTree, repo.WorkTree()) {
		return nil, fmt.Errorf("turnback: store %s belongs to work tree %s, not %s", repo.StoreDir(), repo.WorkTree(), s.req.WorkTree)
	}
	return repo.View(o)
}

// forwardedExit is returned by globals.open when the daemon ran the
// command: its output has been written; the process exits with code.
type forwardedExit struct{ code int }

func (e forwardedExit) Error() string {
	return fmt.Sprintf("exit %d (run by the watch daemon)", e.code)
}

// forward runs the command through the watch daemon of storeDir, if one
// runs, copying its output to g's streams. ok is false when no daemon
// answered; the command then runs here.
func (g *globals) forward(ctx context.Context, workTree, storeDir string) (code int, ok bool) {
	cwd, err := g.getwd()
	if err != nil {
		cwd = workTree
	}
	req := daemon.Request{Args: g.args, Cwd: cwd, Env: daemon.ForwardedEnv(),
		WorkTree: workTree, Store: storeDir, OutTTY: g.outTTY, ErrTTY: g.errTTY}
	stderr := g.stderr
	var held bytes.Buffer
	if g.quiet {
		stderr = &held
	}
	code, err = daemon.Run(ctx, storeDir, req, g.stdout, stderr)
	var lost *daemon.LostError
	var bad *daemon.ProtocolError
	switch {
	case errors.Is(err, daemon.ErrNotRun):
		return 0, false
	case errors.Is(err, daemon.ErrInterrupted):
		fmt.Fprintln(g.stderr, "turnback: interrupted; the watch daemon stops the command")
		return exitError, true
	case errors.As(err, &lost):
		fmt.Fprintf(g.stderr, "turnback: the watch daemon (%s) ended before the command finished: %v\n"+
			"turnback: an interrupted undo, redo or restore is finished or rolled back by the next command\n", lost.Socket, lost.Err)
		return exitError, true
	case errors.As(err, &bad):
		fmt.Fprintf(g.stderr, "turnback: %s\n", bad.Detail)
		return exitError, true
	}
	if code != exitOK && g.quiet {
		_, _ = g.stderr.Write(held.Bytes())
	}
	return code, true
}
