//go:build unix

package walker

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

// handingLoader hands out trees from l and remembers each one it gave.
type handingLoader struct {
	l     manifest.Loader
	mu    sync.Mutex
	given map[cas.Hash]*manifest.Tree
}

func (h *handingLoader) LoadTree(ctx context.Context, x cas.Hash) (*manifest.Tree, error) {
	t, err := h.l.LoadTree(ctx, x)
	if err == nil {
		h.mu.Lock()
		h.given[x] = t
		h.mu.Unlock()
	}
	return t, err
}

// TestCaptureReadsThroughLoader: a capture given Options.Loader reads the
// previous snapshot's trees through it, only reads them (each still
// encodes to its address afterwards), and captures what a capture
// without it does.
func TestCaptureReadsThroughLoader(t *testing.T) {
	dir := t.TempDir()
	s := newStore(t)
	tr := treetest.Tree{}
	for i := range 40 {
		tr[fmt.Sprintf("d%d/sub/f%02d", i%4, i)] = treetest.File(fmt.Sprint(i), 0o644)
	}
	treetest.MustWrite(t, dir, tr)
	first := snap(t, dir, s, Options{})
	treetest.MustWrite(t, dir, treetest.Tree{"d1/new": treetest.File("new", 0o644), "d2/sub/f02": treetest.File("changed", 0o644)})
	h := &handingLoader{l: manifest.NewCachingLoader(manifest.NewStoreLoader(s)), given: map[cas.Hash]*manifest.Tree{}}
	got := snap(t, dir, s, Options{Previous: first.Root, LargeDirFiles: 5, Loader: h})
	want := snap(t, dir, s, Options{Previous: first.Root, LargeDirFiles: 5})
	if got.Root != want.Root {
		t.Fatalf("root %s with the loader, %s without", got.Root.Short(), want.Root.Short())
	}
	if len(h.given) == 0 {
		t.Fatal("the capture read no tree through Options.Loader")
	}
	for x, tree := range h.given {
		b, err := tree.Encode()
		if err != nil || !bytes.Equal(b, mustBlob(t, s, x)) {
			t.Fatalf("tree %s changed by the capture (err %v)", x.Short(), err)
		}
	}
}

func mustBlob(t *testing.T, s *cas.Store, h cas.Hash) []byte {
	t.Helper()
	b, err := s.GetBlob(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
