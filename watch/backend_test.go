package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeBackend is a test double of backend: it records the directories
// added and removed and delivers what the test sends, nothing else.
type fakeBackend struct {
	events chan event
	errs   chan error
	mu     sync.Mutex
	added  map[string]bool // directories added and not removed since
	closed bool
}

func (f *fakeBackend) Add(p string) error {
	if _, err := os.Lstat(p); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.added[p] = true
	return nil
}

func (f *fakeBackend) Remove(p string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.added, p)
	return nil
}

func (f *fakeBackend) Events() <-chan event { return f.events }
func (f *fakeBackend) Errors() <-chan error { return f.errs }

func (f *fakeBackend) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		f.closed = true
		close(f.events)
		close(f.errs)
	}
	return nil
}

func (f *fakeBackend) watched(p string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.added[p]
}

// fakes hands out fake backends and remembers them, newest last.
type fakes struct {
	mu   sync.Mutex
	all  []*fakeBackend
	fail bool
}

func (fs *fakes) make() (backend, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.fail {
		return nil, fmt.Errorf("fake: no backend")
	}
	f := &fakeBackend{events: make(chan event, 64), errs: make(chan error, 4), added: map[string]bool{}}
	fs.all = append(fs.all, f)
	return f, nil
}

func (fs *fakes) last() (*fakeBackend, int) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.all[len(fs.all)-1], len(fs.all)
}

// fakeSync is Sync through a fake backend: the marker's Create is sent
// by the test, behind every event sent before, so when Sync returns the
// loop has handled them all.
func fakeSync(t *testing.T, w *Watcher, fs *fakes) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- w.Sync(ctx) }()
	for sent := false; ; {
		select {
		case err := <-errc:
			if err != nil {
				t.Fatal(err)
			}
			return
		case <-time.After(5 * time.Millisecond):
		}
		if sent {
			continue
		}
		ents, _ := os.ReadDir(w.cookieDir)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "sync-") {
				f, _ := fs.last()
				f.events <- event{Name: filepath.Join(w.cookieDir, e.Name()), Op: opCreate}
				sent = true
			}
		}
	}
}

func sortedDirs(c Changes) []string {
	var ds []string
	for d := range c.Dirs {
		ds = append(ds, d)
	}
	slices.Sort(ds)
	return ds
}

// TestFakeBackend drives the watcher through a test double of the
// backend interface: the loop watches, marks and rebuilds only through
// it. A rescan event re-reads (and re-watches) the subtree named,
// without doubt, whatever happened there unreported; a rescan of the
// root, an overflow error or a failing backend put the watcher in doubt,
// and the rebuild makes a fresh backend.
func TestFakeBackend(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a/b/c", "x"} {
		must2(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	must2(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.log\n"), 0o644))
	fs := &fakes{}
	w, err := New(dir, Options{Logf: t.Logf, CookieDir: t.TempDir()})
	must2(t, err)
	w.newBackend = fs.make
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	must2(t, w.Start(ctx))
	defer w.Close()
	abs := func(rel string) string { return w.abs(rel) }

	f, n := fs.last()
	for _, rel := range []string{"", "a", "a/b", "a/b/c", "x"} {
		if !f.watched(abs(rel)) {
			t.Fatalf("%q not added to the backend", rel)
		}
	}
	if !f.watched(w.cookieDir) {
		t.Fatal("the cookie directory was not added to the backend")
	}
	if ch := w.Take(); !ch.Full {
		t.Fatal("first Take not Full")
	}
	fakeSync(t, w, fs)
	if ch := w.Take(); ch.Full || len(ch.Dirs) != 0 {
		t.Fatalf("quiet tree: got %+v", ch)
	}

	// Behind the backend's back: a new subtree below a/b, c removed.
	must2(t, os.MkdirAll(filepath.Join(dir, "a/b/n/m"), 0o755))
	must2(t, os.Remove(filepath.Join(dir, "a/b/c")))
	tests := []struct {
		name    string
		ev      event
		want    []string
		watched []string
		gone    []string
	}{
		{"write", event{Name: abs("x/f"), Op: opWrite}, []string{"x"}, nil, nil},
		{"rescan", event{Name: abs("a/b"), Op: opRescan}, []string{"a", "a/b", "a/b/n", "a/b/n/m"},
			[]string{"a/b", "a/b/n", "a/b/n/m"}, []string{"a/b/c"}},
		{"rescan of a file", event{Name: abs("x/f"), Op: opRescan}, []string{"x"}, nil, nil},
		{"rescan of an ignored dir name (a file of that name is not ignored)", event{Name: abs("node_modules"), Op: opRescan}, []string{""}, nil, nil},
		{"rescan of an ignored path", event{Name: abs("x/y.log"), Op: opRescan}, nil, nil, nil},
	}
	for _, tc := range tests {
		f.events <- tc.ev
		fakeSync(t, w, fs)
		ch := w.Take()
		if ch.Full {
			t.Fatalf("%s: Full: %s", tc.name, ch.Reason)
		}
		if got := sortedDirs(ch); !slices.Equal(got, tc.want) {
			t.Errorf("%s: dirs %q, want %q", tc.name, got, tc.want)
		}
		for _, rel := range tc.watched {
			if !f.watched(abs(rel)) {
				t.Errorf("%s: %q not watched", tc.name, rel)
			}
		}
		for _, rel := range tc.gone {
			if f.watched(abs(rel)) {
				t.Errorf("%s: %q still watched", tc.name, rel)
			}
		}
	}

	doubts := []struct {
		name   string
		send   func(*fakeBackend)
		reason string
	}{
		{"overflow", func(f *fakeBackend) { f.errs <- fmt.Errorf("fake overflow: %w", errOverflow) }, "fake overflow: events were dropped"},
		{"rescan of the root", func(f *fakeBackend) { f.events <- event{Name: dir, Op: opRescan} }, "rescan of the whole tree"},
		{"other error", func(f *fakeBackend) { f.errs <- fmt.Errorf("fake failure") }, "watcher error: fake failure"},
	}
	for _, tc := range doubts {
		tc.send(f)
		ch := waitFull(t, w)
		if !strings.Contains(ch.Reason, tc.reason) {
			t.Errorf("%s: reason %q, want %q", tc.name, ch.Reason, tc.reason)
		}
		f, n = waitPrecise(t, w, fs, n)
		if !f.watched(abs("a/b/n/m")) {
			t.Errorf("%s: the rebuilt backend does not watch a/b/n/m", tc.name)
		}
	}

	// A backend that cannot be made: every Take is Full with its reason.
	fs.mu.Lock()
	fs.fail = true
	fs.mu.Unlock()
	f.errs <- fmt.Errorf("fake: %w", errOverflow)
	waitFull(t, w)
	deadline := time.Now().Add(30 * time.Second)
	for w.Problem() == "" {
		if time.Now().After(deadline) {
			t.Fatal("no problem reported for a backend that cannot be made")
		}
		time.Sleep(5 * time.Millisecond)
		w.Take()
	}
	if ch := w.Take(); !ch.Full || !strings.Contains(w.Problem(), "fake: no backend") {
		t.Fatalf("failing backend: Take %+v, problem %q", ch, w.Problem())
	}
}

// waitFull polls Take until it is Full (the doubt was handled).
func waitFull(t *testing.T, w *Watcher) Changes {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if ch := w.Take(); ch.Full {
			return ch
		}
		if time.Now().After(deadline) {
			t.Fatal("no doubt")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitPrecise waits for the rebuild after a doubt: a backend newer than
// the n-th, and a Take that is not Full after a sync through it.
func waitPrecise(t *testing.T, w *Watcher, fs *fakes, n int) (*fakeBackend, int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if f, m := fs.last(); m > n {
			w.Take()
			fakeSync(t, w, fs)
			if !w.Take().Full {
				return f, m
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no rebuild")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func must2(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
