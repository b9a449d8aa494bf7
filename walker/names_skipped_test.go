//go:build linux && (amd64 || arm64)

package walker

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
)

// TestNamesSkippedNotLstated: names Base skipped beside a turn's path
// (ignored build outputs) are not lstat'ed again by a capture by name,
// whether the directory's listing comes from its record or from
// getdents; one that is now of another kind is, and is judged again
// (a file where the rule ignores only a directory is kept). Skipped and
// the root equal a full walk's.
func TestNamesSkippedNotLstated(t *testing.T) {
	for _, records := range []bool{false, true} {
		t.Run(fmt.Sprint("records=", records), func(t *testing.T) {
			dir := t.TempDir()
			nodes := []node{
				fileNode(".gitignore", 0o644, "*.o\nout/\n"),
				fileNode("d/main.c", 0o644, "int main;"),
				fileNode("d/out/x", 0o644, "built"),
			}
			for i := range 200 {
				nodes = append(nodes, fileNode(fmt.Sprintf("d/f%d.o", i), 0o644, "obj"))
			}
			build(t, dir, nodes)
			b := cas.NewMemory()
			s := newStoreOn(t, b)
			opts := Options{Index: &GitIndexes{}}
			if records {
				opts.Cache = NewStatCache(b)
				ageTree(t, dir)
				time.Sleep(settle)
			}
			base := snap(t, dir, s, opts)
			write(t, dir, "d/main.c", "int main() {}")
			if !records {
				removeAll(t, dir, "d/out")
				write(t, dir, "d/out", "a file now: kept") // d's names change: getdents
			}
			full := opts
			full.Cache = nil
			full.Previous = base.Root
			want := snap(t, dir, s, full)
			var mu sync.Mutex
			lstated := map[string]bool{}
			testHookLstat = func(name string) {
				mu.Lock()
				lstated[name] = true
				mu.Unlock()
			}
			got := snap(t, dir, s, byName(opts, base.Root, []string{"d/main.c"}))
			testHookLstat = nil
			for n := range lstated {
				if len(n) > 2 && n[len(n)-2:] == ".o" {
					t.Errorf("%s lstat'ed: Base skipped it", n)
				}
			}
			if !records && !lstated["out"] {
				t.Error("d/out, a directory Base skipped and now a file, was not lstat'ed")
			}
			if got.Root != want.Root {
				t.Errorf("by name root %s, full walk %s", got.Root.Short(), want.Root.Short())
			}
			if !reflect.DeepEqual(got.Skipped, want.Skipped) {
				t.Errorf("skipped: by name %+v\nfull walk %+v", got.Skipped, want.Skipped)
			}
		})
	}
}
