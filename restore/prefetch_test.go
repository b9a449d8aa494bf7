package restore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
)

// countSource records which hashes were opened, and how often.
type countSource struct {
	Source
	mu     sync.Mutex
	opened map[cas.Hash]int
	fail   cas.Hash // Open of this hash fails
	seen   chan cas.Hash
}

var errSourceBroken = errors.New("source broken")

func (c *countSource) Open(ctx context.Context, h cas.Hash) (io.Reader, error) {
	c.mu.Lock()
	c.opened[h]++
	c.mu.Unlock()
	if c.seen != nil {
		select {
		case c.seen <- h:
		default:
		}
	}
	if h == c.fail {
		return nil, errSourceBroken
	}
	return c.Source.Open(ctx, h)
}

func (c *countSource) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, k := range c.opened {
		n += k
	}
	return n
}

// Staging reads the next files' content ahead: while the first file is
// being staged, the second one's content is asked for already.
func TestPrefetchReadsAhead(t *testing.T) {
	e := newEnv(t)
	old, new := tree{}, tree{}
	for i := range 6 {
		new[fmt.Sprintf("f%d", i)] = file(strings.Repeat(fmt.Sprint(i), 100+i), 0o644)
	}
	p := e.plan(e.actions(old, new))
	var second cas.Hash
	for i, n := 0, 0; i < len(p.Actions); i++ {
		if p.Actions[i].writesFile() {
			if n++; n == 2 {
				second = p.Actions[i].New.Hash
			}
		}
	}
	src := &countSource{Source: e.store, opened: map[cas.Hash]int{}, seen: make(chan cas.Hash, 64)}
	o := e.opts()
	o.Source = src
	o.Hook = func(step string) error {
		if step != "stage 0" {
			return nil
		}
		// Before the first file is staged, the second's content is read.
		deadline := time.After(10 * time.Second)
		for {
			select {
			case h := <-src.seen:
				if h == second {
					return nil
				}
			case <-deadline:
				return errors.New("the second file's content was not read ahead")
			}
		}
	}
	if _, err := Apply(context.Background(), e.root(), p, o); err != nil {
		t.Fatal(err)
	}
	checkTree(t, e.dir, new)
	// Each content is read once.
	for h, n := range src.opened {
		if n != 1 {
			t.Errorf("content %s opened %d times", h.Short(), n)
		}
	}
}

// Files sharing their content, and a failing read: the error is
// Apply's, nothing is left staged, and no read goes on after Apply
// returned.
func TestPrefetchSharedAndFailing(t *testing.T) {
	e := newEnv(t)
	old := tree{"keep": file("keep", 0o644)}
	new := tree{"keep": file("keep", 0o644)}
	for i := range 12 {
		new[fmt.Sprintf("a%02d", i)] = file("same content", 0o644)
		new[fmt.Sprintf("b%02d", i)] = file(fmt.Sprintf("own %d", i), 0o600)
	}
	t.Run("shared", func(t *testing.T) {
		e := newEnv(t)
		build(t, e.dir, old)
		o := e.opts()
		src := &countSource{Source: e.store, opened: map[cas.Hash]int{}}
		o.Source = src
		if _, err := Apply(context.Background(), e.root(), e.plan(e.actions(old, new)), o); err != nil {
			t.Fatal(err)
		}
		checkTree(t, e.dir, new)
		checkClean(t, e)
	})
	t.Run("failing", func(t *testing.T) {
		build(t, e.dir, old)
		p := e.plan(e.actions(old, new))
		o := e.opts()
		src := &countSource{Source: e.store, opened: map[cas.Hash]int{}, fail: e.put("own 7")}
		o.Source = src
		_, err := Apply(context.Background(), e.root(), p, o)
		if !errors.Is(err, errSourceBroken) {
			t.Fatalf("Apply: %v, want the source's error", err)
		}
		n := src.total()
		time.Sleep(50 * time.Millisecond)
		if m := src.total(); m != n {
			t.Errorf("%d reads after Apply returned", m-n)
		}
		checkTree(t, e.dir, old)
		checkClean(t, e)
	})
}

// closeSource yields readers that hold something open until closed.
type closeSource struct {
	Source
	mu   sync.Mutex
	open map[*closeReader]bool
}

type closeReader struct {
	io.Reader
	s *closeSource
}

func (c *closeReader) Close() error {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	delete(c.s.open, c)
	return nil
}

func (c *closeSource) Open(ctx context.Context, h cas.Hash) (io.Reader, error) {
	r, err := c.Source.Open(ctx, h)
	if err != nil {
		return nil, err
	}
	cr := &closeReader{Reader: r, s: c}
	c.mu.Lock()
	c.open[cr] = true
	c.mu.Unlock()
	return cr, nil
}

// Content read ahead and never staged (staging failed first) is closed.
func TestPrefetchClosesUntaken(t *testing.T) {
	e := newEnv(t)
	new := tree{}
	for i := range 6 {
		new[fmt.Sprintf("f%d", i)] = file(fmt.Sprint("content ", i), 0o644)
	}
	p := e.plan(e.actions(tree{}, new))
	src := &closeSource{Source: e.store, open: map[*closeReader]bool{}}
	o := e.opts()
	o.Source = src
	o.Hook = func(step string) error {
		if step != "stage 0" {
			return nil
		}
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			src.mu.Lock()
			n := len(src.open)
			src.mu.Unlock()
			if n >= 2 {
				break
			}
		}
		return errors.New("injected")
	}
	if _, err := Apply(context.Background(), e.root(), p, o); err == nil {
		t.Fatal("Apply succeeded, want the hook's error")
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	if len(src.open) != 0 {
		t.Errorf("%d readers read ahead and left open", len(src.open))
	}
}
