package daemons

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/watch/daemon"
)

// Handler runs the commands a daemon is sent, in this process, on the
// daemon's open Repo.
type Handler struct {
	Srv  *daemon.Server
	Repo *turnback.Repo
	// Exec runs req's command line as the client would have, with the
	// client's environment (getenv), and returns its exit code.
	Exec func(ctx context.Context, req daemon.Request, getenv func(string) string, stdout, stderr io.Writer) int
}

// Run runs a forwarded command; one that a hard stop of the daemon
// cancelled ends by saying why.
func (h *Handler) Run(ctx context.Context, req daemon.Request, stdout, stderr io.Writer) int {
	env := map[string]string{}
	for _, kv := range req.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	code := h.Exec(ctx, req, func(k string) string { return env[k] }, stdout, stderr)
	if why, ok := daemon.Stopping(ctx); ok && code != 0 {
		// Cancelled by a hard stop: say why, after the command's own
		// "context canceled".
		_, _ = fmt.Fprintf(stderr, "turnback: the watch daemon is stopping (%s): it cancelled this command\n", why)
	}
	return code
}

// View returns the Repo a forwarded command works on: a view of the
// daemon's, for the work tree and store the client located.
func (h *Handler) View(req daemon.Request, o turnback.Options) (*turnback.Repo, error) {
	repo := h.Repo
	if !SameDir(req.Store, repo.StoreDir()) {
		return nil, fmt.Errorf("turnback: the watch daemon serves store %s, not %s", repo.StoreDir(), req.Store)
	}
	if !SameDir(req.WorkTree, repo.WorkTree()) {
		return nil, fmt.Errorf("turnback: store %s belongs to work tree %s, not %s", repo.StoreDir(), repo.WorkTree(), req.WorkTree)
	}
	return repo.View(o)
}

// Forward runs req through the watch daemon of storeDir, if one runs,
// copying its output to stdout and stderr (with quiet, the daemon's
// stderr only if the command fails), and returns its exit code. ok is
// false when no daemon ran it; the command then runs here. A daemon
// that is lost or misbehaves midway is reported on stderr, exit 1.
func Forward(ctx context.Context, storeDir string, req daemon.Request, stdout, stderr io.Writer, quiet bool) (code int, ok bool) {
	out := stderr
	var held bytes.Buffer
	if quiet {
		out = &held
	}
	code, err := daemon.Run(ctx, storeDir, req, stdout, out)
	var lost *daemon.LostError
	var bad *daemon.ProtocolError
	switch {
	case errors.Is(err, daemon.ErrNotRun):
		return 0, false
	case errors.Is(err, daemon.ErrInterrupted):
		fmt.Fprintln(stderr, "turnback: interrupted; the watch daemon stops the command")
		return 1, true
	case errors.As(err, &lost):
		fmt.Fprintf(stderr, "turnback: the watch daemon (%s) ended before the command finished: %v\n"+
			"turnback: an interrupted undo, redo or restore is finished or rolled back by the next command\n", lost.Socket, lost.Err)
		return 1, true
	case errors.As(err, &bad):
		fmt.Fprintf(stderr, "turnback: %s\n", bad.Detail)
		return 1, true
	}
	if code != 0 && quiet {
		_, _ = stderr.Write(held.Bytes())
	}
	return code, true
}
