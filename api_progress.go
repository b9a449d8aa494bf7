package turnback

// The HTTP API's progress stream. A request that accepts
// application/x-ndjson (and no application/json) is answered 200 with
// one JSON document per line: {"progress": {...}} while the operation
// runs (every progressEvery, when a counter moved), {"step": name} as
// a restore begins each step (restore.Options.Hook), then one last line,
// {"result": doc} with the document the request would get, or
// {"error": doc, "status": n} with the error document and the status it
// would get. A client shows the progress line of a capture or a restore
// that runs in the daemon as it would for one of its own.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/turnback/turnback/watch/daemon"
)

// ndjson is the media type of the progress stream.
const ndjson = "application/x-ndjson"

// progressEvery is how often the stream reports counters that moved.
const progressEvery = 100 * time.Millisecond

// progressJSON is the counters of a capture (Progress) and of a restore
// (RestoreProgress) as the stream carries them.
type progressJSON struct {
	Files        int64 `json:"files"`
	Dirs         int64 `json:"dirs"`
	HashedFiles  int64 `json:"hashed_files"`
	HashedBytes  int64 `json:"hashed_bytes"`
	RestoreDone  int64 `json:"restore_done"`
	RestoreTotal int64 `json:"restore_total"`
}

// streamEvent is one line of the stream.
type streamEvent struct {
	Progress *progressJSON  `json:"progress,omitempty"`
	Step     string         `json:"step,omitempty"`
	Result   any            `json:"result,omitempty"`
	Error    *ErrorResponse `json:"error,omitempty"`
	Status   int            `json:"status,omitempty"`
}

// wantsStream reports whether r asks for the progress stream.
func wantsStream(r *http.Request) bool {
	stream := false
	for _, h := range r.Header.Values("Accept") {
		for _, part := range strings.Split(h, ",") {
			mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			switch mt {
			case ndjson:
				stream = true
			case "application/json", "*/*", "application/*":
				return false
			}
		}
	}
	return stream
}

// readCounters returns the counters as they are now.
func readCounters(p *Progress, rp *RestoreProgress) progressJSON {
	return progressJSON{Files: p.Files.Load(), Dirs: p.Dirs.Load(), HashedFiles: p.HashedFiles.Load(),
		HashedBytes: p.HashedBytes.Load(), RestoreDone: rp.Done.Load(), RestoreTotal: rp.Total.Load()}
}

// stream serves r through rt as a progress stream.
func (a *apiServer) stream(rt apiRoute, w http.ResponseWriter, r *http.Request) {
	// The body is read before the first line is written: HTTP/1 may
	// not let a handler read it after. One byte over the bound is
	// enough for decode to say it is too large.
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBody+1))
	if err != nil {
		status, doc := apiErrorDoc(badRequest{"reading the body: " + err.Error()})
		writeAPIError(w, status, doc)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	s := *a
	s.progress, s.restoreProgress = &Progress{}, &RestoreProgress{}
	type outcome struct {
		out any
		err error
	}
	done := make(chan outcome, 1)
	// The header goes with the first line: an operation that ends
	// before the first report costs one write.
	w.Header().Set("Content-Type", ndjson)
	w.Header().Set("Cache-Control", "no-store")
	var mu sync.Mutex // one line at a time; guards last
	enc := json.NewEncoder(w)
	rc := http.NewResponseController(w)
	var last progressJSON
	// send writes the counters if they moved, then ev (if any); the
	// caller holds mu.
	send := func(ev *streamEvent) {
		moved := false
		if now := readCounters(s.progress, s.restoreProgress); now != last {
			last, moved = now, true
			_ = enc.Encode(streamEvent{Progress: &now})
		}
		if ev == nil {
			if moved {
				_ = rc.Flush()
			}
			return
		}
		if err := enc.Encode(ev); err != nil && ev.Result != nil {
			status, doc := apiErrorDoc(err)
			_ = enc.Encode(streamEvent{Error: doc, Status: status})
		}
		if ev.Result == nil && ev.Error == nil {
			_ = rc.Flush() // the outcome is flushed as the handler returns
		}
	}
	// A step is on its way to the client before the restore takes it
	// (and before a hook of the daemon's own, which may end it).
	s.step = func(name string) {
		mu.Lock()
		defer mu.Unlock()
		send(&streamEvent{Step: name})
	}
	go func() {
		out, err := rt.serve(&s, w, r)
		done <- outcome{out, err}
	}()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			mu.Lock()
			send(nil) // the counters, if they moved
			mu.Unlock()
		case o := <-done:
			ev := streamEvent{Result: o.out}
			if o.err != nil {
				ev = streamEvent{}
				ev.Status, ev.Error = requestErrorDoc(r, o.err)
			}
			mu.Lock()
			send(&ev)
			mu.Unlock()
			return
		}
	}
}

// requestErrorDoc is apiErrorDoc for the error of request r: one that a
// hard stop of the daemon caused says why it stopped.
func requestErrorDoc(r *http.Request, err error) (int, *ErrorResponse) {
	status, doc := apiErrorDoc(err)
	if why, ok := daemon.Stopping(r.Context()); ok {
		doc.Stopping = why
	}
	return status, doc
}

// stepHook is a restore hook that reports each step, then runs next
// (if any).
func stepHook(report func(string), next func(string) error) func(string) error {
	return func(name string) error {
		report(name)
		if next != nil {
			return next(name)
		}
		return nil
	}
}

// do sends one request of this view: over the progress stream when its
// Options ask for counters, else for one document.
func (rm *remoteRepo) do(ctx context.Context, method, path string, q url.Values, body, out any) error {
	hdr := http.Header{}
	if rm.opts.Now != nil {
		hdr.Set(testNowHeader, rm.opts.Now().Format(time.RFC3339Nano))
	}
	var seen func(http.Header)
	if rm.pickPending() {
		hdr.Set(pickHeader, map[bool]string{false: "latest", true: "latest-reading"}[rm.pick.reading])
		seen = rm.readPicked
	}
	p, rp, hook := rm.opts.Progress, rm.opts.RestoreProgress, rm.r.hook
	if p == nil && rp == nil && hook == nil {
		return rm.c.do(ctx, method, path, q, body, out, hdr, seen)
	}
	hdr.Set("Accept", ndjson)
	return rm.c.doStream(ctx, method, path, q, body, out, p, rp, hook, hdr, seen)
}

// doStream is do over the progress stream: what the daemon's counters
// gain is added to p and rp (either may be nil) as the lines come, and
// hook (if set) is called with each step of the daemon's restore.
func (c *remoteConn) doStream(ctx context.Context, method, path string, q url.Values, body, out any, p *Progress, rp *RestoreProgress,
	hook func(string) error, hdr http.Header, seen func(http.Header)) error {
	resp, err := c.send(ctx, method, path, q, body, hdr, seen)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || mt != ndjson {
		return c.answer(resp, out) // a daemon that does not stream
	}
	if p == nil {
		p = &Progress{}
	}
	if rp == nil {
		rp = &RestoreProgress{}
	}
	dec := json.NewDecoder(resp.Body)
	var last progressJSON
	for {
		var ev struct {
			Progress *progressJSON   `json:"progress"`
			Step     string          `json:"step"`
			Result   json.RawMessage `json:"result"`
			Error    *ErrorResponse  `json:"error"`
			Status   int             `json:"status"`
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
