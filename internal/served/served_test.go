package served

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/api"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/watch/daemon"
)

// The root's tests drive a real daemon (TestDaemonRepoSameResults,
// TestDaemonRepoPickLatest, ...). These cover what a daemon cannot be
// made to do on cue: the fallback's order, its waits and its pick.

// localStore is the store this process opens once the daemon is gone.
type localStore struct {
	latest model.SessionInfo
	err    error
	closed int
}

func (l *localStore) LatestSession(context.Context) (model.SessionInfo, error) {
	return l.latest, l.err
}
func (l *localStore) Close() error { l.closed++; return nil }

// testConn is a Conn whose store opens with the errors of opens, in
// turn, then l; opened counts the opens.
func testConn(t *testing.T, l *localStore, wait time.Duration, opens ...error) (*Conn, *int) {
	opened := new(int)
	c := &Conn{api: api.New(t.TempDir(), t.TempDir()), store: Store{Wait: wait, Open: func(context.Context, time.Duration) (Local, error) {
		*opened++
		if len(opens) > 0 {
			err := opens[0]
			opens = opens[1:]
			return nil, err
		}
		return l, nil
	}}}
	return c, opened
}

func testView(c *Conn) *View {
	var hook func(string) error
	return c.View(Options{Session: "s", Hook: &hook, Picked: func(string) {}, Local: func(Local) (Backend, error) { return nil, nil }})
}

// TestCallFallback: a call the daemon ran is its answer, whatever the
// error; one it did not run (ErrNotServed) runs here, on a store
// opened once: every later call of every view of the Repo runs here,
// never again in the daemon. Close closes that store once.
func TestCallFallback(t *testing.T) {
	ctx := t.Context()
	l := &localStore{}
	c, opened := testConn(t, l, time.Second)
	v, w := testView(c), testView(c)
	daemonErr := fmt.Errorf("in the daemon: %w", model.ErrConflict)
	remote := func(val string, err error) func() (string, error) {
		return func() (string, error) { return val, err }
	}
	here := func(Backend) (string, error) { return "here", nil }
	for _, s := range []struct {
		name    string
		v       *View
		remote  func() (string, error)
		want    string
		wantErr error
		opened  int
	}{
		{"served", v, remote("daemon", nil), "daemon", nil, 0},
		{"an error the daemon returned", v, remote("", daemonErr), "", model.ErrConflict, 0},
		{"not served", v, remote("", api.ErrNotServed), "here", nil, 1},
		{"a daemon back again", w, remote("daemon", nil), "here", nil, 1},
	} {
		got, err := call(ctx, s.v, s.remote, here)
		if got != s.want || !errors.Is(err, s.wantErr) || (s.wantErr == nil) != (err == nil) {
			t.Errorf("%s: %q %v, want %q %v", s.name, got, err, s.want, s.wantErr)
		}
		if *opened != s.opened {
			t.Errorf("%s: store opened %d times, want %d", s.name, *opened, s.opened)
		}
	}
	if err := v.Close(true); err != nil || l.closed != 0 {
		t.Errorf("a view's Close: %v, store closed %d times", err, l.closed)
	}
	if err := w.Close(false); err != nil || l.closed != 1 {
		t.Errorf("Close: %v, store closed %d times", err, l.closed)
	}
	if err := v.Close(false); err != nil || l.closed != 1 {
		t.Errorf("second Close: %v, store closed %d times", err, l.closed)
	}
	if _, err := call(ctx, v, remote("daemon", nil), here); err == nil {
		t.Error("a call after Close ran")
	}
}

// TestCallFallbackWaits: a daemon stopping still holds the store: the
// fallback asks the daemon again and retries the open while it is busy,
// up to Store.Wait; any other error of the open is the call's at once.
func TestCallFallbackWaits(t *testing.T) {
	ctx := t.Context()
	busy := fmt.Errorf("store: %w", model.ErrBusy)
	t.Run("released", func(t *testing.T) {
		c, opened := testConn(t, &localStore{}, time.Minute, busy, busy)
		asked := 0
		got, err := call(ctx, testView(c), func() (string, error) { asked++; return "", api.ErrNotServed },
			func(Backend) (string, error) { return "here", nil })
		if got != "here" || err != nil || *opened != 3 || asked != 3 {
			t.Errorf("%q %v, opened %d, daemon asked %d; want here, 3, 3", got, err, *opened, asked)
		}
	})
	t.Run("never released", func(t *testing.T) {
		c, _ := testConn(t, &localStore{}, 20*time.Millisecond)
		c.store.Open = func(_ context.Context, wait time.Duration) (Local, error) {
			time.Sleep(wait / 50) // as the open waits for the store
			return nil, busy
		}
		start := time.Now()
		_, err := call(ctx, testView(c), func() (string, error) { return "", api.ErrNotServed },
			func(Backend) (string, error) { return "here", nil })
		if !errors.Is(err, model.ErrBusy) || time.Since(start) > 10*time.Second {
			t.Errorf("%v after %v, want ErrBusy after the wait", err, time.Since(start))
		}
	})
	t.Run("damaged", func(t *testing.T) {
		c, opened := testConn(t, &localStore{}, time.Minute, model.ErrNotStore)
		_, err := call(ctx, testView(c), func() (string, error) { return "", api.ErrNotServed },
			func(Backend) (string, error) { return "here", nil })
		if !errors.Is(err, model.ErrNotStore) || *opened != 1 {
			t.Errorf("%v, opened %d; want ErrNotStore at once", err, *opened)
		}
	})
}

// TestPick: a PickLatest view's first request asks the daemon to pick
// (reading or not); the answer's header names the session, which the
// view then works on. A header that does not decode picks nothing.
func TestPick(t *testing.T) {
	enc := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, c := range []struct {
		name, header string
		want         string // the view's session after the answer
	}{
		{"picked", enc(`{"name":"abc123","short":"abc123"}`), "abc123"},
		{"no header", "", "s"},
		{"not base64", "!!", "s"},
		{"not JSON", enc(`{"name":`), "s"},
		{"no name", enc(`{"short":"x"}`), "s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, _ := testConn(t, &localStore{}, time.Second)
			v := testView(conn)
			var told []string
			v.opts.Picked = func(s string) { told = append(told, s) }
			var got []model.SessionInfo
			v.Pick(true, func(s model.SessionInfo) { got = append(got, s) })
			cl := v.req()
			if cl.Header.Get(daemon.PickHeader) != "latest-reading" || cl.Seen == nil {
				t.Fatalf("first request: %v, want the pick", cl.Header)
			}
			h := http.Header{}
			if c.header != "" {
				h.Set(daemon.PickedHeader, c.header)
			}
			cl.Seen(h)
			if v.opts.Session != c.want {
				t.Errorf("session %q, want %q", v.opts.Session, c.want)
			}
			picked := c.want != "s"
			if (len(got) == 1 && len(told) == 1) != picked || picked && (got[0].Name != c.want || told[0] != c.want) {
				t.Errorf("onPick %v, Picked %v", got, told)
			}
			if next := v.req(); (next.Header.Get(daemon.PickHeader) != "") == picked {
				t.Errorf("next request: %v (picked %v)", next.Header, picked)
			}
			if picked {
				h.Set(daemon.PickedHeader, enc(`{"name":"other"}`))
				v.readPicked(h)
				if v.opts.Session != c.want {
					t.Errorf("a second pick changed the session to %q", v.opts.Session)
				}
			}
		})
	}
}

// TestPickLocal: once the daemon is gone before it picked, the pick
// runs on the local store: an ambiguous pick (a turn open in another
// session) is no error for a reading command, which works on the
// session picked, and is one for a writing command.
func TestPickLocal(t *testing.T) {
	amb := &model.AmbiguousSessionError{Sessions: []model.SessionInfo{{Name: "a"}, {Name: "b"}}}
	for _, c := range []struct {
		name    string
		reading bool
		l       *localStore
		want    string
		wantErr error
	}{
		{"picked", false, &localStore{latest: model.SessionInfo{Name: "a"}}, "a", nil},
		{"ambiguous, reading", true, &localStore{latest: model.SessionInfo{Name: "a"}, err: amb}, "a", nil},
		{"ambiguous, writing", false, &localStore{latest: model.SessionInfo{Name: "a"}, err: amb}, "s", model.ErrAmbiguousSession},
		{"no session", true, &localStore{err: model.ErrNoSession}, "s", model.ErrNoSession},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, _ := testConn(t, c.l, time.Second)
			v := testView(conn)
			v.Pick(c.reading, nil)
			_, err := call(t.Context(), v, func() (int, error) { return 0, api.ErrNotServed }, func(Backend) (int, error) { return 1, nil })
			if !errors.Is(err, c.wantErr) || (c.wantErr == nil) != (err == nil) || v.opts.Session != c.want {
				t.Errorf("%v, session %q; want %v, %q", err, v.opts.Session, c.wantErr, c.want)
			}
		})
	}
}

// TestReadOnly: a read-only view refuses writes before any request.
func TestReadOnly(t *testing.T) {
	conn, _ := testConn(t, &localStore{}, time.Second)
	v := testView(conn)
	if err := v.writable(); err != nil {
		t.Errorf("writable: %v", err)
	}
	v.opts.ReadOnly = true
	if err := v.writable(); !errors.Is(err, model.ErrReadOnly) {
		t.Errorf("read-only: %v", err)
	}
}
