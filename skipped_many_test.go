package turnback_test

// review43: a folder with many ignored files (build outputs next to
// their sources, as *.o in a C tree built in place).

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback"
)

// TestSnapManyIgnoredFiles: 7,000 files ignored by "*.o", 140 in each
// of 50 directories. The snap's records list every skipped path twice
// (m/capture's Skipped, unbounded, and the skip stamps of m/skips, up
// to 4,096): 1.4 MB in one transaction, past Badger's batch limit, so
// snap fails with "Txn is too big to fit into one request" and the
// folder cannot be captured at all. Each path is named once and fits
// as in a snap of 7,000 captured files; it fails on main at the first snap.
func TestSnapManyIgnoredFiles(t *testing.T) {
	t.Parallel()
	rt := newRegressTree(t)
	rt.write(".gitignore", "*.o\n")
	for d := range 50 {
		dir := rt.path(fmt.Sprintf("src%02d", d))
		rt.do("mkdir", os.MkdirAll(dir, 0o755))
		rt.write(fmt.Sprintf("src%02d/main.c", d), "int main;\n")
		for i := range 140 {
			rt.do("write", os.WriteFile(filepath.Join(dir, fmt.Sprintf("obj%03d.o", i)), []byte("o"), 0o644))
		}
	}
	if _, err := rt.repo.Snap(rt.ctx, "first"); err != nil {
		t.Fatalf("snap of a folder with 7000 ignored files: %v", err)
	}
	rt.write("src00/main.c", "int main(void) { return 0; }\n")
	rt.end()
	u, err := rt.repo.Undo(rt.ctx, 1, turnback.UndoOptions{})
	rt.do("undo", err)
	if got := rt.read("src00/main.c"); got != "int main;\n" {
		t.Fatalf("undo: src00/main.c holds %q (%+v)", got, u)
	}
	if got := rt.read("src00/obj007.o"); got != "o" {
		t.Fatalf("undo: an ignored file holds %q", got)
	}
}
