//go:build linux

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest/treetest"
	"github.com/turnback/turnback/watch/daemon"
)

// TestHandoffUndoRedoForwarded: right after a snap handed its capture
// over to the daemon it started, edits made before the daemon is ready
// (files changed, added and removed, a directory renamed, one added),
// then end, undo and redo, all forwarded to the daemon. Undo must bring
// back the folder as the snap saw it, redo the edited one, byte for
// byte (the big sparse file over the size limit is left out of the
// comparison: it is never restored).
func TestHandoffUndoRedoForwarded(t *testing.T) {
	testtier.Slow(t)
	e := newBinEnv(t)
	wt, store := filepath.Join(e.base, "wt"), filepath.Join(e.base, "store")
	files := map[string]string{}
	for i := range 60 {
		files[fmt.Sprintf("d%d/e%d/f%d.txt", i%4, i%3, i)] = fmt.Sprintf("file %d\n", i)
	}
	treetest.PutAll(t, wt, files)
	big, err := os.Create(filepath.Join(wt, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	big.Close()
	t.Cleanup(func() { e.execOut("", "-C", wt, "--store", store, "watch", "--stop") })
	e.setenv("TURNBACK_AUTO_WATCH", "5")
	e.setenv("TURNBACK_SIZE_LIMIT", "1M")
	skipBig := treetest.Skip("big.bin")
	before := treetest.MustRead(t, wt, skipBig)
	if so, se, code := e.execOut("", "-C", wt, "--store", store, "snap", "-m", "first"); code != 0 {
		t.Fatalf("snap: exit %d, %q / %q", code, so, se)
	}
	// Edits at once, while the daemon may still wait for the store.
	treetest.PutAll(t, wt, map[string]string{"d0/new.txt": "new\n", "d1/e1/f1.txt": "changed\n", "n/m/x.txt": "x\n"})
	if err := os.Remove(filepath.Join(wt, "d2", "e2", "f2.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(wt, "d3", "e0"), filepath.Join(wt, "d3", "moved")); err != nil {
		t.Fatal(err)
	}
	after := treetest.MustRead(t, wt, skipBig)
	waitFor(t, "a daemon serves the folder", func() bool {
		info, ok := daemon.Ping(store)
		return ok && info.Ready
	})
	log, _ := os.ReadFile(filepath.Join(store, "watch.log"))
	handed := strings.Contains(string(log), "handed its capture over")
	t.Logf("handed over: %v", handed)
	for _, step := range []struct {
		args []string
		want treetest.Tree
	}{
		{[]string{"end"}, after},
		{[]string{"undo"}, before},
		{[]string{"redo"}, after},
		{[]string{"undo"}, before},
	} {
		so, se, code := e.execOut("", append([]string{"-C", wt, "--store", store}, step.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d, %q / %q\n%s", step.args, code, so, se, log)
		}
		treetest.Equal(t, fmt.Sprintf("after %s (handed over: %v)", step.args, handed), treetest.MustRead(t, wt, skipBig), step.want)
	}
	if info, ok := daemon.Ping(store); !ok || !info.Ready {
		t.Errorf("no ready daemon after the forwarded commands: %+v", info)
	}
}
