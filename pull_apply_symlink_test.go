package turnback_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/remote"
	"github.com/turnback/turnback/internal/testtier"
	"github.com/turnback/turnback/manifest"
)

// TestApplyPulledSymlinkOut: between the pull and the apply, a file and
// a directory the pulled turn writes are replaced by symlinks to a
// folder outside. The apply is a conflict; with --force it replaces the
// file's link, keeps it in the checkpoint, lists the paths below the
// directory's link as not restorable, and never writes outside.
func TestApplyPulledSymlinkOut(t *testing.T) {
	testtier.Slow(t)
	ctx := t.Context()
	f := newPullFixture(t, "bucket-apply-symlink")
	wb := f.b.WorkTree()
	f.turnBy(f.a, func(wa string) {
		must(t, os.MkdirAll(filepath.Join(wa, "sub"), 0o755))
		must(t, os.WriteFile(filepath.Join(wa, "sub", "a.txt"), []byte("a"), 0o644))
	})
	f.pushPull()
	if _, err := f.b.ApplyPulled(ctx, "", false); err != nil {
		t.Fatal(err)
	}
	f.turn(f.a, "sub/a.txt", "a seven")
	f.turn(f.a, "turn.txt", "seven")
	f.turn(f.a, "sub/b.txt", "b seven")
	if _, err := remote.Push(ctx, f.a, f.c, remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	must(t, os.WriteFile(filepath.Join(out, "turn.txt"), []byte("outside"), 0o644))
	must(t, os.WriteFile(filepath.Join(out, "a.txt"), []byte("outside a"), 0o644))
	outside := folderState(t, out)
	must(t, os.Remove(filepath.Join(wb, "turn.txt")))
	must(t, os.Symlink(filepath.Join(out, "turn.txt"), filepath.Join(wb, "turn.txt")))
	must(t, os.RemoveAll(filepath.Join(wb, "sub")))
	must(t, os.Symlink(out, filepath.Join(wb, "sub")))
	if _, err := remote.Pull(ctx, f.b, f.c, remote.PullOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := f.b.ApplyPulled(ctx, "", false)
	var ce *turnback.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("apply over symlinks: %+v %v, want a conflict", res, err)
	}
	if got := folderState(t, out); got != outside {
		t.Fatalf("the apply wrote outside the folder:\n%s", got)
	}
	res, err = f.b.ApplyPulled(ctx, "", true)
	if err != nil {
		t.Fatalf("apply --force: %+v %v", res, err)
	}
	if got := folderState(t, out); got != outside {
		t.Fatalf("apply --force wrote outside the folder:\n%s", got)
	}
	// turn.txt is the pulled file again; below the link nothing is
	// written: each path is listed as not restorable, naming the link.
	if data, err := os.ReadFile(filepath.Join(wb, "turn.txt")); err != nil || string(data) != "seven" {
		t.Errorf("turn.txt after apply --force: %q %v", data, err)
	}
	if len(res.NotRestorable) != 2 || !res.Incomplete() {
		t.Fatalf("apply --force over the link sub: not restorable %+v", res.NotRestorable)
	}
	for i, p := range []string{"sub/a.txt", "sub/b.txt"} {
		if n := res.NotRestorable[i]; n.Path != p || !strings.Contains(n.Reason, "sub on disk is a symlink") {
			t.Errorf("not restorable %d: %+v, want %s naming the link", i, n, p)
		}
	}
	l := manifest.NewStoreLoader(f.b.Content())
	for p, target := range map[string]string{"turn.txt": filepath.Join(out, "turn.txt")} {
		e, err := manifest.Find(ctx, l, res.Checkpoint, p)
		if err != nil || e == nil || e.Kind != manifest.KindSymlink || e.Target != target {
			t.Errorf("checkpoint %s has %s as %+v %v, want the link to %s", res.Checkpoint.Short(), p, e, err, target)
		}
	}
}
