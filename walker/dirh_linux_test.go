//go:build linux && (amd64 || arm64)

package walker

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestDirhMounts: a subdirectory on another filesystem (a mount point,
// here a tmpfs; needs root) gets that filesystem's device and its own
// judgement of raw lstats; one on the same filesystem inherits its
// parent's. The capture across it is whole.
func TestDirhMounts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	top := t.TempDir()
	mnt := filepath.Join(top, "mnt")
	for _, d := range []string{mnt, filepath.Join(top, "plain")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "none", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	defer exec.Command("umount", mnt).Run()
	if err := os.WriteFile(filepath.Join(mnt, "f"), []byte("on tmpfs"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(top)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	d, err := openRootDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	if _, err := d.list(nil, nil); err != nil {
		t.Fatal(err)
	}
	if d.raw != localFS(d.fd) {
		t.Errorf("the root's raw %v, localFS %v", d.raw, localFS(d.fd))
	}
	plain, err := d.openDir("plain")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.close()
	m, err := d.openDir("mnt")
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	if plain.dev != d.dev || plain.raw != d.raw {
		t.Errorf("plain: dev %d raw %v, want the parent's %d %v", plain.dev, plain.raw, d.dev, d.raw)
	}
	if m.dev == d.dev || !m.raw {
		t.Errorf("mount point: dev %d (parent %d), raw %v; want its own device and raw (tmpfs)", m.dev, d.dev, m.raw)
	}
	// A filesystem not known to be local (proc stands in for a network
	// one): ordinary system calls.
	procDir := filepath.Join(top, "proc")
	if err := os.Mkdir(procDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "proc", "proc", procDir).CombinedOutput(); err == nil {
		defer exec.Command("umount", procDir).Run()
		if _, err := d.list(nil, nil); err != nil {
			t.Fatal(err)
		}
		p, err := d.openDir("proc")
		if err != nil {
			t.Fatal(err)
		}
		if p.raw || p.dev == d.dev {
			t.Errorf("proc mount point: raw %v, dev %d (parent %d); want ordinary calls and its own device", p.raw, p.dev, d.dev)
		}
		p.close()
	} else {
		t.Logf("no proc mount here: %v %s", err, out)
	}
	ents, err := m.list(nil, nil)
	if err != nil || len(ents) != 1 || ents[0].name != "f" || ents[0].fi.Size() != 8 {
		t.Errorf("listing the mount point: %v, %v", ents, err)
	}
}
