//go:build unix

package restore

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/turnback/turnback/manifest"
)

func ownerOf(t *testing.T, p string) (uid, gid int, mode fs.FileMode) {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid), fi.Mode()
}

// TestOwnersAsRoot: as root, new entries get their recorded owner and
// their special bits only when that owner is applied and exists; at the
// commit point (every file staged), no staged file is setuid or setgid
// for anyone but its recorded owner. Cases: recorded owner (a user that
// exists), recorded owner without a passwd entry, a chown the system
// refuses (injected EPERM), and an entry recorded without an owner (an
// old tree), which takes its directory's owner and no special bits.
func TestOwnersAsRoot(t *testing.T) {
	if !asRoot {
		t.Skip("needs root")
	}
	const nobody = 65534
	cases := []struct {
		name      string
		owned     bool
		uid       uint32
		refuse    bool // chown fails with EPERM
		wantUID   int
		wantSuid  bool
		parentUID int // owner of the directory the file goes in
	}{
		{"recorded user", true, nobody, false, nobody, true, 0},
		{"recorded root", true, 0, false, 0, true, nobody},
		{"owner unknown to the system", true, 43210, false, 43210, false, 0},
		{"chown refused", true, nobody, true, 0, false, 0},
		{"old tree, no owner", false, 0, false, nobody, false, nobody},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			if err := os.Mkdir(filepath.Join(e.dir, "d"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(filepath.Join(e.dir, "d"), c.parentUID, c.parentUID); err != nil {
				t.Fatal(err)
			}
			ent := &manifest.Entry{Name: "x", Kind: manifest.KindFile, Mode: 0o4755, Size: 4, Hash: e.put("exe\n")}
			if c.owned {
				ent.Owned, ent.UID, ent.GID = true, c.uid, c.uid
			}
			dirEnt := &manifest.Entry{Name: "sub", Kind: manifest.KindDir, Mode: 0o2775, Hash: e.put("t")}
			dirEnt.Owned, dirEnt.UID, dirEnt.GID = ent.Owned, ent.UID, ent.GID
			if c.refuse {
				old := chownHook
				chownHook = func() error { return syscall.EPERM }
				t.Cleanup(func() { chownHook = old })
			}
			as := []Action{{Path: "d/x", New: ent}, {Path: "d/sub", New: dirEnt}}
			o := e.opts()
			o.Hook = func(step string) error {
				if step != "journal" {
					return nil
				}
				// Every file is staged: none may be setuid for another.
				return filepath.WalkDir(e.dir, func(p string, de fs.DirEntry, err error) error {
					if err != nil || !strings.HasPrefix(de.Name(), stagePrefix) {
						return err
					}
					uid, _, mode := ownerOf(t, p)
					if mode&(fs.ModeSetuid|fs.ModeSetgid) != 0 && (!ent.Owned || uid != int(ent.UID) || !c.wantSuid) {
						t.Errorf("staged %s is %v owned by %d", p, mode, uid)
					}
					return nil
				})
			}
			if _, err := Apply(context.Background(), e.root(), e.plan(as), o); err != nil {
				t.Fatal(err)
			}
			uid, gid, mode := ownerOf(t, filepath.Join(e.dir, "d/x"))
			if uid != c.wantUID || gid != c.wantUID {
				t.Errorf("d/x owned by %d:%d, want %d", uid, gid, c.wantUID)
			}
			if got := mode&fs.ModeSetuid != 0; got != c.wantSuid || mode.Perm() != 0o755 {
				t.Errorf("d/x mode %v, want setuid %v", mode, c.wantSuid)
			}
			uid, _, mode = ownerOf(t, filepath.Join(e.dir, "d/sub"))
			if uid != c.wantUID || (mode&fs.ModeSetgid != 0) != (c.wantSuid) || mode.Perm() != 0o775 {
				t.Errorf("d/sub: owned by %d, mode %v", uid, mode)
			}
		})
	}
}

// TestSparseStaging: runs of zero blocks are left as holes; the content
// is exact.
func TestSparseStaging(t *testing.T) {
	e := newEnv(t)
	data := strings.Repeat("\x00", 1<<20) + "middle" + strings.Repeat("\x00", 3<<20) + "end"
	ent := &manifest.Entry{Name: "s", Kind: manifest.KindFile, Mode: 0o644, Size: int64(len(data)), Hash: e.put(data)}
	if _, err := Apply(context.Background(), e.root(), e.plan([]Action{{Path: "s", New: ent}}), e.opts()); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(e.dir, "s")
	b, err := os.ReadFile(p)
	if err != nil || string(b) != data {
		t.Fatalf("content differs (%v)", err)
	}
	fi, _ := os.Lstat(p)
	if blocks := fi.Sys().(*syscall.Stat_t).Blocks; blocks*512 > 64<<10 {
		t.Errorf("%d bytes allocated for 9 bytes of data in %d", blocks*512, len(data))
	}
}

// TestOwnersNotRoot: not as root, restores leave owners to the process
// (it cannot give files away) and set the recorded mode, special bits
// included, as before owners were recorded: a setuid file recorded as
// root's comes back the user's own, setuid to the user.
func TestOwnersNotRoot(t *testing.T) {
	if unprivileged(t) {
		return
	}
	if asRoot {
		t.Skip("runs unprivileged only")
	}
	e := newEnv(t)
	me := os.Getuid()
	ent := &manifest.Entry{Name: "x", Kind: manifest.KindFile, Mode: 0o4755, Size: 4, Hash: e.put("exe\n"), Owned: true}
	if _, err := Apply(context.Background(), e.root(), e.plan([]Action{{Path: "x", New: ent}}), e.opts()); err != nil {
		t.Fatal(err)
	}
	uid, _, mode := ownerOf(t, filepath.Join(e.dir, "x"))
	if uid != me || mode != fs.ModeSetuid|0o755 {
		t.Errorf("x: owned by %d, mode %v; want %d, -rwsr-xr-x", uid, mode, me)
	}
}
