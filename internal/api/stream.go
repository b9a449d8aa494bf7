package api

// The client side of the HTTP API's progress stream (the server,
// internal/daemon, says what it carries): a request whose Call asks
// for counters or restore steps is sent for the stream, and the
// counters and steps the daemon reports are added here as they come.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"

	"github.com/turnback/turnback/restore"
	"github.com/turnback/turnback/walker"
	"github.com/turnback/turnback/watch/daemon"
)

// doStream is do over the progress stream: what the daemon's counters
// gain is added to p and rp (either may be nil) as the lines come, and
// hook (if set) is called with each step of the daemon's restore.
func (c *Client) doStream(ctx context.Context, method, path string, q url.Values, body, out any, p *walker.Progress, rp *restore.Progress,
	hook func(string) error, hdr http.Header, seen func(http.Header)) error {
	resp, err := c.send(ctx, method, path, q, body, hdr, seen)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || mt != daemon.StreamType {
		return c.answer(resp, out) // a daemon that does not stream
	}
	if p == nil {
		p = &walker.Progress{}
	}
	if rp == nil {
		rp = &restore.Progress{}
	}
	dec := json.NewDecoder(resp.Body)
	var last daemon.StreamProgress
	for {
		var ev struct {
			Progress *daemon.StreamProgress `json:"progress"`
			Step     string                 `json:"step"`
			Result   json.RawMessage        `json:"result"`
			Error    *ErrorResponse         `json:"error"`
			Status   int                    `json:"status"`
		}
		if err := dec.Decode(&ev); err != nil {
			var syntax *json.SyntaxError
			switch {
			case ctx.Err() != nil:
				return ctx.Err()
			case errors.As(err, &syntax):
				return fmt.Errorf("turnback: the daemon serving %s: %w", c.storeDir, err)
			case err == io.EOF:
				err = io.ErrUnexpectedEOF // the stream ended without the outcome
			}
			return &lostError{c.socket, err}
		}
		switch {
		case ev.Step != "":
			if hook != nil {
				_ = hook(ev.Step) // it cannot fail the daemon's step
			}
		case ev.Progress != nil:
			n := *ev.Progress
			p.Files.Add(n.Files - last.Files)
			p.Dirs.Add(n.Dirs - last.Dirs)
			p.HashedFiles.Add(n.HashedFiles - last.HashedFiles)
			p.HashedBytes.Add(n.HashedBytes - last.HashedBytes)
			rp.Done.Add(n.RestoreDone - last.RestoreDone)
			rp.Total.Add(n.RestoreTotal - last.RestoreTotal)
			last = n
		case ev.Error != nil:
			if ev.Error.Error == "" {
				return fmt.Errorf("turnback: the daemon serving %s answered %d", c.storeDir, ev.Status)
			}
			return ev.Error.err()
		case ev.Result != nil:
			if err := json.Unmarshal(ev.Result, out); err != nil {
				return fmt.Errorf("turnback: the daemon serving %s: %w", c.storeDir, err)
			}
			return nil
		}
	}
}
