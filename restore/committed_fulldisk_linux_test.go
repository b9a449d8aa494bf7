package restore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFinishOnFullDisk: the journal directory's file system is full
// from the commit step on. Marking the restore committed (before its
// metadata is) needs no free space, so the restore still finishes.
func TestFinishOnFullDisk(t *testing.T) {
	if !asRoot {
		t.Skip("needs root to mount a tmpfs")
	}
	e := newEnv(t)
	jdir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", jdir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", jdir).Run() })
	e.jdir = jdir
	build(t, e.dir, crashOld)
	p := e.plan(e.actions(crashOld, crashNew))
	o := e.opts()
	o.Hook = func(s string) error {
		if s != "commit" {
			return nil
		}
		f, err := os.Create(filepath.Join(jdir, "filler"))
		if err != nil {
			return err
		}
		defer f.Close()
		buf := make([]byte, 4096)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					return fmt.Errorf("fill: %w", err)
				}
				return nil
			}
		}
	}
	if _, err := Apply(context.Background(), e.root(), p, o); err != nil {
		t.Fatalf("Apply on a full disk after the commit step: %v", err)
	}
	checkTree(t, e.dir, crashNew)
	if e.commitCount() != 1 {
		t.Fatalf("%d commits", e.commitCount())
	}
}
