package restore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
)

// gateSource yields the content of one hash only once released,
// whatever the context says (a reference being opened on a slow disk),
// as a reader tracked until closed.
type gateSource struct {
	*closeSource
	gate    cas.Hash
	entered chan struct{}
	release chan struct{}
	after   atomic.Bool  // set once Apply returned
	late    atomic.Int32 // Opens that began after Apply returned
}

func (g *gateSource) Open(ctx context.Context, h cas.Hash) (io.Reader, error) {
	if g.after.Load() {
		g.late.Add(1)
	}
	if h != g.gate {
		return g.closeSource.Source.Open(ctx, h)
	}
	close(g.entered)
	<-g.release
	// Its reading was done before the cancellation came.
	return g.closeSource.Open(context.WithoutCancel(ctx), h) // tracked until closed
}

// The context is cancelled while staging waits for content being read
// ahead. Apply returns the cancellation, nothing is staged, nothing is
// read after it returned, and the content that read yields, which no
// one will take, is closed (it may hold a file open).
func TestPrefetchCancelWhileWaiting(t *testing.T) {
	e := newEnv(t)
	new := tree{}
	for i := range 6 {
		new[fmt.Sprintf("f%d", i)] = file(fmt.Sprint("content ", i), 0o644)
	}
	p := e.plan(e.actions(tree{}, new))
	var hashes []cas.Hash
	for _, a := range p.Actions {
		if a.writesFile() {
			hashes = append(hashes, a.New.Hash)
		}
	}
	g := &gateSource{
		closeSource: &closeSource{Source: e.store, open: map[*closeReader]bool{}},
		gate:        hashes[1], entered: make(chan struct{}), release: make(chan struct{}),
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := e.opts()
	o.Source = g
	o.Hook = func(step string) error {
		if step != "stage 1" {
			return nil
		}
		<-g.entered // the second content's read ahead has begun, and waits
		go func() {
			time.Sleep(100 * time.Millisecond) // staging waits for it meanwhile
			cancel()
			time.Sleep(50 * time.Millisecond)
			close(g.release)
		}()
		return nil
	}
	_, err := Apply(ctx, e.root(), p, o)
	g.after.Store(true)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Apply: %v, want the cancellation", err)
	}
	checkTree(t, e.dir, tree{})
	checkClean(t, e)
	time.Sleep(50 * time.Millisecond)
	if n := g.late.Load(); n != 0 {
		t.Errorf("%d reads began after Apply returned", n)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.open) != 0 {
		t.Errorf("the content read ahead for a cancelled Apply is left open")
	}
}

// Many files, some sharing content, some over the read-ahead size, some
// empty, with the context cancelled at every staging step in turn: each
// Apply either fails with the cancellation and leaves the folder as it
// was, or completes; no reader is left open and no goroutine outlives
// Apply. Run it with -race.
func TestPrefetchCancelAnywhere(t *testing.T) {
	old := tree{"keep": file("keep", 0o644)}
	new := tree{"keep": file("keep", 0o644), "d": dir(0o755)}
	for i := range 20 {
		switch i % 5 {
		case 0:
			new[fmt.Sprintf("d/s%02d", i)] = file("shared", 0o644)
		case 1:
			new[fmt.Sprintf("d/e%02d", i)] = file("", 0o600)
		case 2:
			new[fmt.Sprintf("big%02d", i)] = file(strings.Repeat(fmt.Sprint(i), prefetchMax/2+1), 0o644)
		default:
			new[fmt.Sprintf("o%02d", i)] = file(fmt.Sprint("own ", i), 0o644)
		}
	}
	steps := 0
	for _, a := range newEnv(t).actions(old, new) {
		if a.writesFile() {
			steps++
		}
	}
	base := runtime.NumGoroutine()
	for k := 0; k <= steps; k++ {
		e := newEnv(t)
		as := e.actions(old, new)
		build(t, e.dir, old)
		src := &closeSource{Source: e.store, open: map[*closeReader]bool{}}
		ctx, cancel := context.WithCancel(context.Background())
		o := e.opts()
		o.Source = src
		n := 0
		o.Hook = func(step string) error {
			if strings.HasPrefix(step, "stage ") {
				if n++; n == k+1 {
					cancel()
				}
			}
			return nil
		}
		_, err := Apply(ctx, e.root(), e.plan(as), o)
		cancel()
		switch {
		case err == nil:
			if k < steps {
				t.Fatalf("cancel at staging step %d: Apply succeeded", k)
			}
			checkTree(t, e.dir, new)
		case errors.Is(err, context.Canceled):
			checkTree(t, e.dir, old)
		default:
			t.Fatalf("cancel at staging step %d: %v", k, err)
		}
		checkClean(t, e)
	}
	var now int
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if now = runtime.NumGoroutine(); now <= base {
			break
		}
	}
	if now > base {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after the Applies, %d before:\n%s", now, base, buf[:runtime.Stack(buf, true)])
	}
}
