package daemon

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
)

// ErrNotServed: a request ran nothing. No daemon listens on the socket,
// or one of another turnback answered, which gives the store up.
var ErrNotServed = errors.New("daemon: the daemon does not serve the store")

// LostError: the request may have reached the daemon, but no answer
// came (the daemon died, or the connection broke).
type LostError struct{ Err error }

func (e *LostError) Error() string { return "daemon: no answer: " + e.Err.Error() }
func (e *LostError) Unwrap() error { return e.Err }

// Conn sends the HTTP API's requests to the daemon serving a store,
// over the store's socket: one request per connection, each naming the
// protocol's Version, the store and the folder (StoreHeader,
// WorkTreeHeader). It never dials a socket in a directory another user
// could write.
type Conn struct {
	// Socket is the socket the requests go to (SocketPath).
	Socket             string
	client             *http.Client
	workTree, storeDir string
}

// NewConn returns a Conn to the daemon of storeDir, for the folder
// workTree.
func NewConn(workTree, storeDir string) *Conn {
	sock := SocketPath(storeDir)
	c := &Conn{Socket: sock, workTree: workTree, storeDir: storeDir}
	c.client = &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			// Never a socket in a directory another user could write.
			if err := CheckSocketDir(filepath.Dir(sock)); err != nil {
				return nil, err
			}
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
		// One request per connection (the daemon closes each): a
		// connection that ends without an answer means the daemon died
		// and the call's outcome is unknown, never a stop that ran
		// nothing (that answers 503, or refuses the connection).
		DisableKeepAlives: true,
	}}
	return c
}

// Send sends one request, body (if not nil) as its JSON document and
// hdr (may be nil) as headers, and returns the answer. Its error is
// ErrNotServed when nothing ran, the context's when it ended, a
// *LostError when the outcome is not known, or the request's own.
func (c *Conn) Send(ctx context.Context, method, path string, q url.Values, body []byte, hdr http.Header) (*http.Response, error) {
	u := "http://turnback" + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set(ProtocolHeader, strconv.Itoa(Version))
	req.Header.Set(StoreHeader, base64.StdEncoding.EncodeToString([]byte(c.storeDir)))
	req.Header.Set(WorkTreeHeader, base64.StdEncoding.EncodeToString([]byte(c.workTree)))
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	resp, err := c.client.Do(req)
	if err != nil {
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Op == "dial" {
			return nil, ErrNotServed
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &LostError{err}
	}
	if IsOld(resp.StatusCode, resp.Header) {
		// A daemon of an earlier turnback, which does not serve this:
		// nothing ran. It gives the store up.
		resp.Body.Close()
		RetireOld(c.Socket)
		return nil, ErrNotServed
	}
	return resp, nil
}

// Close releases the Conn's idle connections.
func (c *Conn) Close() { c.client.CloseIdleConnections() }
