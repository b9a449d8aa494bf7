//go:build linux

package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker"
)

var cas0 cas.Hash // no previous snapshot

// put writes data at rel below dir, creating parents.
func put(t testing.TB, dir, rel, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// startWatcher starts a watcher on dir, stopped when the test ends.
func startWatcher(t testing.TB, dir string, opts Options, setup func(*Watcher)) *Watcher {
	t.Helper()
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
	w, err := New(dir, opts)
	must(t, err)
	if setup != nil {
		setup(w)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	must(t, w.Start(ctx))
	t.Cleanup(func() { w.Close() })
	return w
}

// settled waits for every event of earlier changes and takes them.
func settled(t testing.TB, w *Watcher) Changes {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	must(t, w.Sync(ctx))
	return w.Take()
}

// precise waits (polling) until a Take is not Full any more: the
// rebuild that follows a doubt has completed. It returns the changes
// taken along the way merged.
func precise(t testing.TB, w *Watcher) Changes {
	t.Helper()
	var all Changes
	deadline := time.Now().Add(30 * time.Second)
	for {
		ch := settled(t, w)
		all.Merge(ch)
		if !ch.Full {
			return all
		}
		if time.Now().After(deadline) {
			t.Fatalf("still in doubt after 30 s: %s", ch.Reason)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func dirList(m map[string]bool) []string {
	var out []string
	for d := range m {
		out = append(out, fmt.Sprintf("%q", d))
	}
	sort.Strings(out)
	return out
}

// capturer runs captures of one work tree into one memory store.
type capturer struct {
	t      testing.TB
	root   *os.Root
	store  *cas.Store
	cache  *walker.StatCache
	totals *walker.TreeTotals
	opts   walker.Options // SizeLimit, LargeDirFiles
}

func newCapturer(t testing.TB, dir string, opts walker.Options) *capturer {
	t.Helper()
	r, err := os.OpenRoot(dir)
	must(t, err)
	t.Cleanup(func() { r.Close() })
	s, err := cas.NewStore(cas.NewMemory())
	must(t, err)
	t.Cleanup(func() { s.Close() })
	return &capturer{t: t, root: r, store: s, cache: walker.NewStatCache(cas.NewMemory()), totals: walker.NewTreeTotals(), opts: opts}
}

// full captures everything, without a stat cache: the truth.
func (c *capturer) full(prev cas.Hash) *walker.Result {
	c.t.Helper()
	o := c.opts
	o.Previous = prev
	res, err := walker.Capture(context.Background(), c.root, c.store, o)
	must(c.t, err)
	return res
}

// incremental captures with Base = base and the watcher's changes (a
// full walk, with the stat cache, when ch is Full).
func (c *capturer) incremental(base cas.Hash, ch Changes) *walker.Result {
	c.t.Helper()
	o := c.opts
	o.Previous, o.Base, o.Dirty, o.Cache, o.Totals = base, base, ch.Dirty(), c.cache, c.totals
	res, err := walker.Capture(context.Background(), c.root, c.store, o)
	must(c.t, err)
	return res
}

// diff lists how tree b differs from tree a.
func (c *capturer) diff(a, b cas.Hash) string {
	var out []string
	err := manifest.Diff(context.Background(), manifest.NewStoreLoader(c.store), a, b, func(ch manifest.Change) error {
		s := ch.String()
		if ch.Old != nil && ch.New != nil {
			s += fmt.Sprintf(" (%+v → %+v)", *ch.Old, *ch.New)
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		out = append(out, "diff: "+err.Error())
	}
	return strings.Join(out, "\n")
}

// sameStats compares what an incremental capture must count like a full
// one.
func sameStats(a, b walker.Stats) string {
	if a.Files != b.Files || a.Dirs != b.Dirs || a.Symlinks != b.Symlinks || a.Bytes != b.Bytes {
		return fmt.Sprintf("counts differ: files %d/%d dirs %d/%d symlinks %d/%d bytes %d/%d",
			a.Files, b.Files, a.Dirs, b.Dirs, a.Symlinks, b.Symlinks, a.Bytes, b.Bytes)
	}
	var pa, pb []string
	for _, u := range a.Uncaptured {
		pa = append(pa, u.Path)
	}
	for _, u := range b.Uncaptured {
		pb = append(pb, u.Path)
	}
	if strings.Join(pa, "\n") != strings.Join(pb, "\n") {
		return fmt.Sprintf("uncaptured differ: %q / %q", pa, pb)
	}
	return ""
}
