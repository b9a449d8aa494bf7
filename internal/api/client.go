package api

// The client side of a daemon's HTTP API on its unix socket: one
// request and its answer, the progress stream (stream.go), and the
// errors an answer carries, made into the ones the root's methods
// return here.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/restore"
	"github.com/turnback/turnback/walker"
	"github.com/turnback/turnback/watch/daemon"
)

// turnVersion is the version of the turn records a client makes (the
// MetaVersion of internal/model).
const turnVersion = 1

// ErrNotServed: nothing ran; the daemon is gone or stopping.
var ErrNotServed = errors.New("turnback: the daemon does not serve the store")

// ErrDaemonLost: the daemon that took a call ended, or the connection to
// it broke, before it answered, so whether the operation ran is not
// known (an interrupted undo, redo or restore is finished or rolled
// back by the next operation on the store).
var ErrDaemonLost = errors.New("turnback: the daemon ended before the operation finished")

// DaemonStoppedError is the error of an operation that the daemon
// running it cancelled as it stopped at once (a signal; its folder or
// store gone): Err is the operation's own error.
type DaemonStoppedError struct {
	Why string // why the daemon stopped
	Err error
}

func (e *DaemonStoppedError) Error() string {
	return fmt.Sprintf("%v (the daemon is stopping: %s)", e.Err, e.Why)
}
func (e *DaemonStoppedError) Unwrap() error { return e.Err }

// lostError is ErrDaemonLost with the daemon's socket and the cause.
type lostError struct {
	socket string
	err    error
}

func (e *lostError) Error() string {
	return fmt.Sprintf("turnback: the watch daemon (%s) ended before the command finished: %v", e.socket, e.err)
}
func (e *lostError) Unwrap() []error { return []error{ErrDaemonLost, e.err} }

// remoteError is an error the daemon returned: its message, and the
// sentinels callers branch on.
type remoteError struct {
	msg string
	is  []error
}

func (e *remoteError) Error() string   { return e.msg }
func (e *remoteError) Unwrap() []error { return e.is }

// verifyError is a verify that found damage: res is what it found.
type verifyError struct {
	remoteError
	res *model.VerifyResult
}

// Client reaches the daemon serving one store; every view of a
// daemon-served Repo shares it.
type Client struct {
	conn     *daemon.Conn
	socket   string
	storeDir string
}

// New returns the client of the daemon serving storeDir for the folder
// workTree (every request names both; a daemon serving others runs
// none).
func New(workTree, storeDir string) *Client {
	return &Client{conn: daemon.NewConn(workTree, storeDir), socket: daemon.SocketPath(storeDir), storeDir: storeDir}
}

// Close closes the client's idle connections.
func (c *Client) Close() { c.conn.Close() }

// Call is what one request of a view carries besides its body.
type Call struct {
	// Session is the view's session, for the routes that name one.
	Session string
	// Header is sent with the request (may be nil).
	Header http.Header
	// Seen, if set, is shown the answer's headers first.
	Seen func(http.Header)
	// Progress and RestoreProgress, if set, get what the daemon's
	// counters gain, and Hook each step of its restore, as they come
	// (the request then asks for the progress stream).
	Progress        *walker.Progress
	RestoreProgress *restore.Progress
	Hook            func(step string) error
}

func (cl Call) sessionPath(op string) string {
	return "/v1/sessions/" + url.PathEscape(cl.Session) + "/" + op
}

// Do sends one request and decodes the answer into out, or returns the
// error the answer carries (ErrNotServed when nothing ran): over the
// progress stream when cl asks for counters, else for one document.
func (c *Client) Do(ctx context.Context, cl Call, method, path string, q url.Values, body, out any) error {
	hdr := cl.Header
	if hdr == nil {
		hdr = http.Header{}
	}
	if cl.Progress == nil && cl.RestoreProgress == nil && cl.Hook == nil {
		return c.do(ctx, method, path, q, body, out, hdr, cl.Seen)
	}
	hdr.Set("Accept", daemon.StreamType)
	return c.doStream(ctx, method, path, q, body, out, cl.Progress, cl.RestoreProgress, cl.Hook, hdr, cl.Seen)
}

// do sends one request and decodes the answer into out, or returns the
// error the answer carries (ErrNotServed when nothing ran).
func (c *Client) do(ctx context.Context, method, path string, q url.Values, body, out any, hdr http.Header, seen func(http.Header)) error {
	resp, err := c.send(ctx, method, path, q, body, hdr, seen)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return c.answer(resp, out)
}

// answer decodes a one-document answer into out, or returns the error
// it carries.
func (c *Client) answer(resp *http.Response, out any) error {
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return &lostError{c.socket, err}
	}
	if resp.StatusCode != http.StatusOK {
		var e ErrorResponse
		if json.Unmarshal(data, &e) != nil || e.Error == "" {
			return fmt.Errorf("turnback: the daemon serving %s answered %s", c.storeDir, resp.Status)
		}
		return e.err()
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("turnback: the daemon serving %s: %w", c.storeDir, err)
	}
	return nil
}

// send sends one request, with the headers hdr, and returns the answer
// (ErrNotServed when nothing ran), whose headers seen (if set) is
// shown first.
func (c *Client) send(ctx context.Context, method, path string, q url.Values, body any, hdr http.Header, seen func(http.Header)) (*http.Response, error) {
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return nil, fmt.Errorf("turnback: api: %w", err)
		}
	}
	hdr.Set(daemon.UnknownSessionHeader, "empty")
	resp, err := c.conn.Send(ctx, method, path, q, data, hdr)
	var lost *daemon.LostError
	switch {
	case errors.Is(err, daemon.ErrNotServed):
		return nil, ErrNotServed
	case errors.As(err, &lost):
		return nil, &lostError{c.socket, lost.Err}
	case err != nil && ctx.Err() != nil:
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("turnback: api: %w", err)
	}
	if seen != nil {
		seen(resp.Header)
	}
	return resp, nil
}

var apiSentinels = map[string][]error{"busy": {model.ErrBusy}, "unknown_id": {model.ErrUnknownID}, "ambiguous_id": {model.ErrAmbiguousID},
	"ambiguous_session": {model.ErrAmbiguousSession}, "unverified": {model.ErrUnverified}, "no_space": {model.ErrNoSpace}, "read_only": {model.ErrReadOnly},
	"invalid_meta": {model.ErrInvalidMeta}, "verify": {model.ErrVerify}, "bad_path": {model.ErrPath},
	"bad_ref": {model.ErrBadRef}, "no_turn": {model.ErrNoTurn, model.ErrUnknownID}, "open_turn": {model.ErrOpenTurn},
	"diverged": {model.ErrDiverged}, "not_applied": {model.ErrNotApplied}, "bad_session": {model.ErrBadSession}, "no_session": {model.ErrNoSession}}

// err makes the error the daemon described into the error the method
// returns here: a *ConflictError with its result, an *UnfinishedError,
// or one that wraps the same sentinel; one the daemon's stop caused, a
// *DaemonStoppedError around it.
func (e *ErrorResponse) err() error {
	err := e.kindErr()
	if e.Stopping != "" && err != ErrNotServed {
		return &DaemonStoppedError{Why: e.Stopping, Err: err}
	}
	return err
}

func (e *ErrorResponse) kindErr() error {
	switch e.Kind {
	case "conflict":
		if e.Result != nil {
			if res, err := e.Result.result(); err == nil {
				return &model.ConflictError{Result: res}
			}
		}
		return &remoteError{msg: e.Error, is: []error{model.ErrConflict}}
	case "unfinished":
		return &model.UnfinishedError{Err: errors.New(strings.TrimPrefix(e.Error, "turnback: an undo, redo or restore stopped part way and is not finished: "))}
	case "stopping", "wrong_daemon":
		return ErrNotServed
	case "verify":
		return &verifyError{remoteError: remoteError{msg: e.Error, is: apiSentinels[e.Kind]}, res: e.Verify}
	case "ambiguous_session":
		if len(e.Sessions) > 0 {
			ae := &model.AmbiguousSessionError{}
			for _, s := range e.Sessions {
				ae.Sessions = append(ae.Sessions, s)
			}
			return ae
		}
	}
	return &remoteError{msg: e.Error, is: apiSentinels[e.Kind]}
}
