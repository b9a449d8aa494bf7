package daemon

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
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/api"
	wd "github.com/turnback/turnback/watch/daemon"
)

// progressEvery is how often the stream reports counters that moved.
const progressEvery = 100 * time.Millisecond

// streamEvent is one line of the stream.
type streamEvent struct {
	Progress *wd.StreamProgress `json:"progress,omitempty"`
	Step     string             `json:"step,omitempty"`
	Result   any                `json:"result,omitempty"`
	Error    *api.ErrorResponse `json:"error,omitempty"`
	Status   int                `json:"status,omitempty"`
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
			case wd.StreamType:
				stream = true
			case "application/json", "*/*", "application/*":
				return false
			}
		}
	}
	return stream
}

// readCounters returns the counters as they are now.
func readCounters(p *turnback.Progress, rp *turnback.RestoreProgress) wd.StreamProgress {
	return wd.StreamProgress{Files: p.Files.Load(), Dirs: p.Dirs.Load(), HashedFiles: p.HashedFiles.Load(),
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
	s.progress, s.restoreProgress = &turnback.Progress{}, &turnback.RestoreProgress{}
	type outcome struct {
		out any
		err error
	}
	done := make(chan outcome, 1)
	// The header goes with the first line: an operation that ends
	// before the first report costs one write.
	w.Header().Set("Content-Type", wd.StreamType)
	w.Header().Set("Cache-Control", "no-store")
	var mu sync.Mutex // one line at a time; guards last
	enc := json.NewEncoder(w)
	rc := http.NewResponseController(w)
	var last wd.StreamProgress
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
func requestErrorDoc(r *http.Request, err error) (int, *api.ErrorResponse) {
	status, doc := apiErrorDoc(err)
	if why, ok := Stopping(r.Context()); ok {
		doc.Stopping = why
	}
	return status, doc
}
