//go:build unix

package turnback_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/remote"
	"github.com/turnback/turnback/internal/testtier"
)

// TestApplyPulledLastNoSpecialBits: root applies a session new to the
// store, whose last state holds a setuid tool of another machine that
// its turns did not change, so the apply leaves the folder's own
// tool.sh alone. The session's last state, recorded with the folder's
// owners, must not keep the other machine's setuid bit: restoring it
// gives the other machine's script, never a setuid root file.
func TestApplyPulledLastNoSpecialBits(t *testing.T) {
	testtier.Slow(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	ctx := t.Context()
	f := newPullFixture(t, "bucket-localize-special")
	tool := filepath.Join(f.a.WorkTree(), "tool.sh")
	must(t, os.WriteFile(tool, []byte("#!/bin/sh\necho theirs\n"), 0o755))
	must(t, os.Chown(tool, 4242, 4242))
	must(t, os.Chmod(tool, 0o755|fs.ModeSetuid))
	x, err := f.a.View(turnback.Options{Session: "x"})
	if err != nil {
		t.Fatal(err)
	}
	f.turn(x, "x.txt", "made by x")
	if _, err := remote.Push(ctx, x, f.c, remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	f.turn(f.b, "tool.sh", "mine\n")
	if _, err := remote.Pull(ctx, f.b, f.c, remote.PullOptions{Session: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.b.ApplyPulled(ctx, "x", false); err != nil {
		t.Fatal(err)
	}
	xb, err := f.b.View(turnback.Options{Session: "x"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := xb.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.b.Restore(ctx, st.Base.String(), turnback.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(filepath.Join(f.b.WorkTree(), "tool.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
		t.Errorf("tool.sh after restoring x's last state: mode %v, a setuid file from another machine", fi.Mode())
	}
}
