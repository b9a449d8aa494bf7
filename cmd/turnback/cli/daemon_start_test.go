//go:build unix

package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback"
	daemons "github.com/turnback/turnback/internal/daemon"
)

// TestWaiterGoesToStartingDaemon: a command that found no daemon and
// waits for the store while a daemon holds it (one that has opened the
// store and does not listen yet) goes to that daemon as soon as it
// listens, instead of waiting out TURNBACK_LOCK_WAIT, and the daemon
// runs it. The daemon here is this test process: it holds the store,
// then serves it with the CLI's own handler.
func TestWaiterGoesToStartingDaemon(t *testing.T) {
	t.Parallel()
	e, store, repo := heldStore(t)
	p := e.with("TURNBACK_LOCK_WAIT=10m").start("--store", store, "snap", "-m", "waited")
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(p.stderr.String(), "waiting for the store"); {
		if time.Now().After(deadline) {
			t.Fatalf("the snap does not say it waits: %q", p.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	d, cancel, served := serveHeld(t, repo)
	// Without the daemon, the snap would wait ten minutes: a generous
	// bound turns that into a failure that says so.
	guard := time.AfterFunc(2*time.Minute, func() { _ = p.cmd.Process.Kill() })
	r := p.wait()
	if !guard.Stop() {
		t.Errorf("the snap still waited for the store 2 minutes after the daemon listened (killed)")
	}
	requests := d.Requests()
	cancel()
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}
	if r.code != 0 || !strings.Contains(r.stderr, "turn 2 of session default started") || requests != 1 {
		t.Fatalf("snap that waited for a starting daemon: %v\ndaemon ran %d commands; want exit 0, run by the daemon", r, requests)
	}
	if l := e.ok("--store", store, "log"); !strings.Contains(l.stdout, "waited") {
		t.Errorf("log after the forwarded snap:\n%s", l.stdout)
	}
}

// TestAPIWaiterGoesToStartingDaemon: the same for the Go API without
// Local: an Open that waits for the store a starting daemon holds goes
// to that daemon (its HTTP API) as soon as it listens, and the Repo's
// methods run there.
func TestAPIWaiterGoesToStartingDaemon(t *testing.T) {
	t.Parallel()
	e, store, repo := heldStore(t)
	wt := e.dir
	waiting := make(chan struct{})
	type opened struct {
		r   *turnback.Repo
		err error
		at  time.Time
	}
	got := make(chan opened, 1)
	go func() {
		r, err := turnback.Open(context.Background(), wt, turnback.Options{Store: store, LockWait: 10 * time.Minute,
			OnWait: func(string) { close(waiting) }})
		got <- opened{r, err, time.Now()}
	}()
	select {
	case <-waiting:
	case o := <-got:
		t.Fatalf("Open did not wait for the held store: %v", o.err)
	case <-time.After(30 * time.Second):
		t.Fatal("Open does not say it waits")
	}
	_, cancel, served := serveHeld(t, repo)
	listened := time.Now()
	var o opened
	select {
	case o = <-got:
	case <-time.After(2 * time.Minute):
		t.Fatal("Open still waited for the store 2 minutes after the daemon listened")
	}
	if o.err != nil {
		t.Fatalf("Open after the daemon listened: %v", o.err)
	}
	res, err := o.r.Snap(context.Background(), "api waited")
	if err != nil {
		t.Fatalf("Snap through the daemon: %v", err)
	}
	o.r.Close()
	cancel()
	if err := <-served; err != nil {
		t.Errorf("serve: %v", err)
	}
	if res.Turn != 2 {
		t.Errorf("Snap through the daemon: turn %d, want 2", res.Turn)
	}
	t.Logf("Open returned %v after the daemon listened", o.at.Sub(listened).Round(time.Millisecond))
	if l := e.ok("--store", store, "log"); !strings.Contains(l.stdout, "api waited") {
		t.Errorf("log after the API's snap:\n%s", l.stdout)
	}
}

// heldStore makes a work tree base/wt with one snap in base/store, and
// opens that store in this process as a starting daemon does (holding
// it, not listening yet). e runs the CLI's commands in base/wt.
func heldStore(t *testing.T) (e *cliEnv, store string, repo *turnback.Repo) {
	e = newDirEnv(t, "wt")
	store = filepath.Join(e.base, "store")
	e.write("a.txt", "a\n")
	e.ok("--store", store, "snap")
	repo, err := turnback.Open(t.Context(), e.dir, turnback.Options{Store: store, Holder: "a starting daemon", Local: true})
	if err != nil {
		t.Fatal(err)
	}
	return e, store, repo
}

// serveHeld makes this process the daemon of repo's store, with the
// CLI's handler and the HTTP API, until cancel; served says how Serve
// ended.
func serveHeld(t *testing.T, repo *turnback.Repo) (d *daemons.Server, cancel context.CancelFunc, served chan error) {
	d = daemons.NewServer(daemons.ServerConfig{WorkTree: repo.WorkTree(), StoreDir: repo.StoreDir(), Store: repo, HTTP: daemons.NewHandler(repo)})
	if err := d.Listen(); err != nil {
		repo.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served = make(chan error, 1)
	go func() { served <- d.Serve(ctx) }()
	return d, cancel, served
}
