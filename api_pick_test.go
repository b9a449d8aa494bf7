//go:build unix

package turnback_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/watch/daemon"
)

// TestDaemonRepoPickLatest: a PickLatest view works on the session
// LatestSession picks, with or without a daemon; through one, the pick
// rides on the view's first request (one request, not two), onPick
// hears of it before that request returns, and two sessions working
// now are that request's *AmbiguousSessionError, as LatestSession's
// error is locally.
func TestDaemonRepoPickLatest(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	clock := func() time.Time { return now }
	ws := newTwins(t, base, "a.txt", "one\n")
	startDaemon(t, ws[1].dir, ws[1].store, "")
	for _, w := range ws {
		r, err := turnback.Open(ctx, w.dir, turnback.Options{Store: w.store, LockWait: -1, Now: clock})
		if err != nil {
			t.Fatalf("%s: Open: %v", w.name, err)
		}
		defer r.Close()
		w.repo = r
	}
	if ws[0].repo.Served() || !ws[1].repo.Served() {
		t.Fatal("one local, one served, expected")
	}
	turn := func(w *twin, session, data string) {
		t.Helper()
		v, err := w.repo.View(turnback.Options{Session: session, Now: clock})
		if err == nil {
			_, err = v.Snap(ctx, "t")
		}
		w.write(t, "a.txt", data)
		if err == nil {
			_, err = v.End(ctx)
		}
		if err != nil {
			t.Fatalf("%s: turn of %s: %v", w.name, session, err)
		}
	}
	requests := func() int64 {
		t.Helper()
		in, ok := daemon.Ping(ws[1].store)
		if !ok {
			t.Fatal("no daemon")
		}
		return in.Requests
	}

	for _, w := range ws {
		turn(w, "s", "two\n")
	}
	r0 := requests()
	for _, w := range ws {
		picked := ""
		v, err := w.repo.PickLatest(ctx, turnback.Options{Now: clock}, false, func(s turnback.SessionInfo) { picked = s.Name })
		if err != nil {
			t.Fatalf("%s: PickLatest: %v", w.name, err)
		}
		st, err := v.Status(ctx)
		if err != nil {
			t.Fatalf("%s: Status: %v", w.name, err)
		}
		if picked != "s" || v.Session() != "s" || len(st.Changes) != 0 {
			t.Fatalf("%s: picked %q, session %q, %d changes; want s, s, 0", w.name, picked, v.Session(), len(st.Changes))
		}
	}
	if n := requests() - r0; n != 1 {
		t.Fatalf("the served PickLatest and Status took %d requests, want 1", n)
	}

	// Two sessions with a turn open now: no guess.
	var errs [2]string
	for i, w := range ws {
		turn(w, "u", "three\n")
		for _, name := range []string{"s", "u"} {
			v, err := w.repo.View(turnback.Options{Session: name, Now: clock})
			if err == nil {
				_, err = v.Snap(ctx, "open")
			}
			if err != nil {
				t.Fatalf("%s: snap of %s: %v", w.name, name, err)
			}
		}
		v, err := w.repo.PickLatest(ctx, turnback.Options{Now: clock}, false, nil)
		if err == nil {
			_, err = v.Status(ctx)
		}
		var ae *turnback.AmbiguousSessionError
		if !errors.As(err, &ae) || len(ae.Sessions) != 2 {
			t.Fatalf("%s: %v, want an *AmbiguousSessionError of 2 sessions", w.name, err)
		}
		errs[i] = fmt.Sprintf("%v %s %s", err, ae.Sessions[0].Name, ae.Sessions[1].Name)
		// A reading command never refuses: it works on the session picked.
		picked := ""
		if v, err = w.repo.PickLatest(ctx, turnback.Options{Now: clock}, true, func(s turnback.SessionInfo) { picked = s.Name }); err == nil {
			_, err = v.Status(ctx)
		}
		if err != nil || picked != ae.Sessions[0].Name || v.Session() != picked {
			t.Fatalf("%s: reading: %v, picked %q; want %s", w.name, err, picked, ae.Sessions[0].Name)
		}
	}
	if errs[0] != errs[1] {
		t.Fatalf("local: %s\nserved: %s", errs[0], errs[1])
	}
}
