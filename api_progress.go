package turnback

// The HTTP API's progress stream. A request that accepts
// application/x-ndjson (and no application/json) is answered 200 with
// one JSON document per line: {"progress": {...}} while the operation
// runs (every progressEvery, when a counter moved), then one last line,
// {"result": doc} with the document the request would get, or
// {"error": doc, "status": n} with the error document and the status it
// would get. A client shows the progress line of a capture or a restore
// that runs in the daemon as it would for one of its own.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
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
	go func() {
		out, err := rt.serve(&s, w, r)
		done <- outcome{out, err}
	}()
	w.Header().Set("Content-Type", ndjson)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	var last progressJSON
	report := func() {
		if now := readCounters(s.progress, s.restoreProgress); now != last {
			last = now
			_ = enc.Encode(streamEvent{Progress: &now})
			_ = rc.Flush()
		}
	}
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			report()
			continue
		case o := <-done:
			report()
			ev := streamEvent{Result: o.out}
			if o.err != nil {
				ev = streamEvent{}
				ev.Status, ev.Error = apiErrorDoc(o.err)
			}
			if err := enc.Encode(ev); err != nil {
				status, doc := apiErrorDoc(err)
				_ = enc.Encode(streamEvent{Error: doc, Status: status})
			}
			_ = rc.Flush()
			return
		}
	}
}

// do sends one request of this view: over the progress stream when its
// Options ask for counters, else for one document.
func (rm *remoteRepo) do(ctx context.Context, method, path string, q url.Values, body, out any) error {
	p, rp := rm.opts.Progress, rm.opts.RestoreProgress
	if p == nil && rp == nil {
		return rm.c.do(ctx, method, path, q, body, out)
	}
	return rm.c.doStream(ctx, method, path, q, body, out, p, rp)
}

// doStream is do over the progress stream: what the daemon's counters
// gain is added to p and rp (either may be nil) as the lines come.
func (c *remoteConn) doStream(ctx context.Context, method, path string, q url.Values, body, out any, p *Progress, rp *RestoreProgress) error {
	resp, err := c.send(ctx, method, path, q, body, ndjson)
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
			Result   json.RawMessage `json:"result"`
			Error    *ErrorResponse  `json:"error"`
			Status   int             `json:"status"`
		}
		if err := dec.Decode(&ev); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF // the stream ended without the outcome
			}
			return fmt.Errorf("turnback: the daemon serving %s: %w", c.storeDir, err)
		}
		switch {
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
