package daemon

// HTTP on the daemon's socket, and on loopback TCP with a bearer token
// (see "HTTP" in doc.go).

import (
	"bufio"
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	wd "github.com/turnback/turnback/watch/daemon"
)

// connListener hands the socket's connections to the HTTP server.
type connListener struct {
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
	addr net.Addr
}

func newConnListener(addr net.Addr) *connListener {
	return &connListener{ch: make(chan net.Conn), done: make(chan struct{}), addr: addr}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *connListener) Addr() net.Addr { return l.addr }

// push hands c over; false once the listener is closed.
func (l *connListener) push(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.done:
		return false
	}
}

// startHTTP starts serving HTTP on the socket's connections and on the
// TCP listener.
func (d *Server) startHTTP(ctx context.Context) {
	api := d.c.HTTP
	if api == nil {
		api = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			writeJSONError(w, http.StatusNotFound, "turnback: no such endpoint: "+r.URL.Path, 2, "not_found")
		})
	}
	h := d.routes(d.countHTTP(api))
	base := func(net.Listener) context.Context { return ctx }
	d.hconns = newConnListener(d.ln.Addr())
	d.hsrv = &http.Server{Handler: h, BaseContext: base, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: 64 << 10}
	// One request per connection: a connection is never idle, so a
	// stopping daemon never closes one a client is about to use, and a
	// connection that ends without an answer means the daemon died.
	d.hsrv.SetKeepAlivesEnabled(false)
	go func() { _ = d.hsrv.Serve(d.hconns) }()
	if d.tcp != nil {
		d.tsrv = &http.Server{Handler: requireToken(d.c.Token, h), BaseContext: base, ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
		d.tsrv.SetKeepAlivesEnabled(false)
		go func() { _ = d.tsrv.Serve(d.tcp) }()
	}
}

// stopHTTP shuts the HTTP servers down once every request counted has
// ended (or the stop is hard): connections accepted meanwhile get their
// answer (503, nothing ran) before they close, for at most clientGrace.
func (d *Server) stopHTTP() {
	ctx, cancel := context.WithTimeout(context.Background(), clientGrace)
	defer cancel()
	select {
	case <-d.hard:
		cancel()
	default:
	}
	for _, s := range []*http.Server{d.hsrv, d.tsrv} {
		if s != nil && s.Shutdown(ctx) != nil {
			_ = s.Close()
		}
	}
}

// refuseHTTP answers a connection that came once the daemon's HTTP
// server stopped: a ping gets the daemon's Info, a stop joins those
// answered once the store is released, anything else 503 (nothing ran).
// It reports whether it kept c (a stop).
func (d *Server) refuseHTTP(c net.Conn) (kept bool) {
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if req, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
		switch {
		case req.Method == "GET" && req.URL.Path == "/v1/daemon":
			body, _ := json.Marshal(d.Info())
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n", len(body)+1, body)
			return false
		case req.Method == "POST" && req.URL.Path == "/v1/daemon/stop":
			_ = c.SetDeadline(time.Time{})
			d.mu.Lock()
			d.stoppers = append(d.stoppers, c)
			d.mu.Unlock()
			return true
		}
	}
	body := `{"error":"turnback: the daemon is stopping; nothing was run","exit_code":4,"kind":"stopping"}` + "\n"
	fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	return false
}

// routes answers the daemon's own requests (see wire.go) and hands the
// others to h: every one of them is refused when it names another
// protocol, and the daemon then gives its store up.
func (d *Server) routes(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(wd.ProtocolHeader, strconv.Itoa(wd.Version)) // see IsOld
		switch {
		case r.Method == "GET" && r.URL.Path == "/v1/daemon":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(d.Info())
			return
		case r.Method == "POST" && r.URL.Path == "/v1/daemon/stop":
			d.askedToStop(w)
			return
		}
		if v := r.Header.Get(wd.ProtocolHeader); v != "" && v != strconv.Itoa(wd.Version) {
			// Another turnback (an upgrade, with a daemon left from
			// before): this daemon gives the store up, and the client
			// runs the request itself once the store is free.
			d.Stop(fmt.Sprintf("a client speaks protocol %s, this daemon %d", v, wd.Version), false)
			writeJSONError(w, http.StatusServiceUnavailable, "turnback: the daemon is stopping; nothing was run", 4, "stopping")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// askedToStop stops the daemon; the client's connection is answered
// once the store is released (Serve).
func (d *Server) askedToStop(w http.ResponseWriter) {
	c, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		writeJSONError(w, http.StatusInternalServerError, "turnback: cannot take the connection: "+err.Error(), 1, "error")
		return
	}
	_ = c.SetDeadline(time.Time{})
	d.mu.Lock()
	d.stoppers = append(d.stoppers, c)
	d.mu.Unlock()
	d.Stop("asked by turnback watch --stop", false)
}

// bodyWait bounds how long a request's body may take to arrive. A body
// is at most MaxRequestBody bytes, sent at once by every client.
const bodyWait = 10 * time.Second

// readBody reads r's body (up to one byte past MaxRequestBody, for the
// handler's 413) within bodyWait, and puts it back in r. On a body that
// does not arrive it answers 408 and returns false.
func readBody(w http.ResponseWriter, r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(bodyWait))
	data, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBody+1))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		writeJSONError(w, http.StatusRequestTimeout, fmt.Sprintf("turnback: the request's body did not arrive within %v: nothing was run", bodyWait), 2, "bad_request")
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	return true
}

// countHTTP makes every request but a health check count as work (the
// daemon is not idle meanwhile, and a stop waits for it); once the
// daemon stops, requests are refused with 503 (nothing ran: the client
// runs it itself once the store is free).
func (d *Server) countHTTP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/health" || r.URL.Path == "/v1/openapi.json" {
			h.ServeHTTP(w, r)
			return
		}
		// The body first, within bodyWait: a client that stalls in it
		// is not work, and must not hold the daemon or a stop.
		if !readBody(w, r) {
			return
		}
		d.mu.Lock()
		select {
		case <-d.stopped:
			d.mu.Unlock()
			writeJSONError(w, http.StatusServiceUnavailable, "turnback: the daemon is stopping; nothing was run", 4, "stopping")
			return
		default:
		}
		d.busy++
		d.httpActive.Add(1)
		d.mu.Unlock()
		defer func() {
			// The answer leaves before a stop can close the connection.
			_ = http.NewResponseController(w).Flush()
			d.mu.Lock()
			d.busy--
			d.lastDone = time.Now()
			d.mu.Unlock()
			d.httpActive.Done()
		}()
		d.requests.Add(1)
		h.ServeHTTP(w, r)
	})
}

// requireToken lets through the requests that carry the bearer token.
func requireToken(token string, h http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if token == "" || subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="turnback"`)
			writeJSONError(w, http.StatusUnauthorized, "turnback: a bearer token is required (turnback serve --print-token)", 2, "unauthorized")
			return
		}
		h.ServeHTTP(w, r)
	})
}

func writeJSONError(w http.ResponseWriter, status int, msg string, code int, kind string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, "{\"error\":%q,\"exit_code\":%d,\"kind\":%q}\n", msg, code, kind)
}
