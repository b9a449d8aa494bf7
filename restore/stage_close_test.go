package restore

import (
	"context"
	"fmt"
	"testing"
)

// TestStagingClosesReaders: every reader the Source hands out that is
// an io.Closer is closed once Apply returns, whether staging read it
// whole (the usual case) or read ahead of it and never used it. A
// reference's reader holds a file open until closed.
func TestStagingClosesReaders(t *testing.T) {
	for _, n := range []int{1, 3, 20} {
		t.Run(fmt.Sprint(n, " files"), func(t *testing.T) {
			e := newEnv(t)
			old, new := tree{}, tree{}
			for i := range n {
				old[fmt.Sprintf("f%02d", i)] = file("old", 0o644)
				new[fmt.Sprintf("f%02d", i)] = file(fmt.Sprint("new content ", i), 0o644)
			}
			build(t, e.dir, old)
			p := e.plan(e.actions(old, new))
			src := &closeSource{Source: e.store, open: map[*closeReader]bool{}}
			o := e.opts()
			o.Source = src
			if _, err := Apply(context.Background(), e.root(), p, o); err != nil {
				t.Fatal(err)
			}
			checkTree(t, e.dir, new)
			src.mu.Lock()
			defer src.mu.Unlock()
			if len(src.open) != 0 {
				t.Errorf("%d readers left open after Apply", len(src.open))
			}
		})
	}
}
