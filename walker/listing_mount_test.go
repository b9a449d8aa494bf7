//go:build linux && (amd64 || arm64)

package walker

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest/treetest"
	"golang.org/x/sys/unix"
)

// mountOn mounts on dir (mount's arguments args), skipping the test
// where that cannot be done (not root, no such filesystem here); the
// test's end unmounts it.
func mountOn(t *testing.T, dir string, args ...string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	if out, err := exec.Command("mount", append(args, dir)...).CombinedOutput(); err != nil {
		t.Skipf("cannot mount %v here: %v %s", args, err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
}

func unmount(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
		t.Fatalf("umount %s: %v %s", dir, err, out)
	}
}

// snapClosed is snap with the root closed once done (a filesystem
// still open cannot be unmounted).
func snapClosed(t *testing.T, dir string, s *cas.Store, opts Options) *Result {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	res, err := Capture(context.Background(), root, s, opts)
	if err != nil {
		t.Fatalf("Capture: %v", err)
	}
	return res
}

// dirStatOf is what a record's listing is vouched by, as lstat shows it.
func dirStatOf(t *testing.T, p string) [5]int64 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	return [5]int64{int64(st.Dev), int64(st.Ino), st.Size, st.Mtim.Nano(), st.Ctim.Nano()}
}

// TestListingOverlayLower: on overlayfs a merged directory's stat is
// its upper directory's, while its names are those of every layer. A
// name added to a lower layer while the overlay is not mounted (which
// overlayfs allows) is in the directory once it is mounted again, with
// its stat (device, inode, size, times) unchanged: a capture must still
// see it.
func TestListingOverlayLower(t *testing.T) {
	top := t.TempDir()
	lower, upper, work, mnt := abs(top, "lower"), abs(top, "upper"), abs(top, "work"), abs(top, "mnt")
	treetest.PutAll(t, lower, map[string]string{"d/a.txt": "a"})
	for _, d := range []string{upper, work, mnt} {
		mkdirAll(t, d, ".")
	}
	opts := "lowerdir=" + lower + ",upperdir=" + upper + ",workdir=" + work
	mountOn(t, mnt, "-t", "overlay", "overlay", "-o", opts)
	treetest.MustWrite(t, mnt, treetest.Tree{"d/b.txt": treetest.File("b", 0o644)}) // d is merged now: its stat is its upper directory's
	time.Sleep(settle)
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	r1 := snapClosed(t, mnt, s, Options{Cache: cache})
	before := dirStatOf(t, abs(mnt, "d"))
	unmount(t, mnt)
	treetest.MustWrite(t, lower, treetest.Tree{"d/c.txt": treetest.File("c", 0o644)})
	mountOn(t, mnt, "-t", "overlay", "overlay", "-o", opts)
	if after := dirStatOf(t, abs(mnt, "d")); after != before {
		t.Skipf("the overlay mounted again shows d with another stat here (%v, was %v)", after, before)
	}
	r2 := snap(t, mnt, s, Options{Cache: cache, Previous: r1.Root})
	got := flatten(t, s, r2.Root)
	if _, ok := got["d/c.txt"]; !ok {
		t.Errorf("d/c.txt, added to the lower layer, is not captured")
	}
	sameSnapshot(t, "after the lower layer changed", got, fullWalk(t, mnt))
}

// fscryptKey adds (add) or removes the fscrypt key raw on the
// filesystem open at fd, and returns its identifier.
func fscryptKey(fd int, raw []byte, id [16]byte, add bool) ([16]byte, uint32, error) {
	if !add {
		arg := unix.FscryptRemoveKeyArg{Key_spec: unix.FscryptKeySpecifier{Type: unix.FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER}}
		copy(arg.Key_spec.U[:], id[:])
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.FS_IOC_REMOVE_ENCRYPTION_KEY, uintptr(unsafe.Pointer(&arg)))
		if e != 0 {
			return id, 0, e
		}
		return id, arg.Removal_status_flags, nil
	}
	n := int(unsafe.Sizeof(unix.FscryptAddKeyArg{}))
	buf := make([]byte, n+len(raw))
	arg := (*unix.FscryptAddKeyArg)(unsafe.Pointer(&buf[0]))
	arg.Key_spec.Type = unix.FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER
	arg.Raw_size = uint32(len(raw))
	copy(buf[n:], raw)
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.FS_IOC_ADD_ENCRYPTION_KEY, uintptr(unsafe.Pointer(&buf[0])))
	if e != 0 {
		return id, 0, e
	}
	copy(id[:], arg.Key_spec.U[:16])
	return id, 0, nil
}

// TestListingEncryptedNames: in an fscrypt-encrypted directory the
// names getdents returns depend on whether the key is present
// (ciphertext "no-key" names without it, which lookups by plaintext
// name do not find, and the other way round), while the directory's
// stat does not change when the key is added or removed. A capture
// made while the key was absent must not make a later one, with the
// key, miss the directory's files.
func TestListingEncryptedNames(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	top := t.TempDir()
	img, mnt := abs(top, "img"), abs(top, "mnt")
	mkdirAll(t, mnt, ".")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 32<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-b", "4096", "-O", "encrypt", img).CombinedOutput(); err != nil {
		t.Skipf("mkfs.ext4 -O encrypt: %v %s", err, out)
	}
	mountOn(t, mnt, "-o", "loop", img)
	tree := abs(mnt, "tree")
	mkdirAll(t, tree, "enc")
	mfd, err := unix.Open(mnt, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(mfd)
	raw := []byte(strings.Repeat("turnback test key, 64 bytes long", 2))
	id, _, err := fscryptKey(mfd, raw, [16]byte{}, true)
	if err != nil {
		t.Skipf("cannot add an fscrypt key: %v", err)
	}
	pol := unix.FscryptPolicyV2{Version: unix.FSCRYPT_POLICY_V2, Contents_encryption_mode: unix.FSCRYPT_MODE_AES_256_XTS,
		Filenames_encryption_mode: unix.FSCRYPT_MODE_AES_256_CTS, Flags: unix.FSCRYPT_POLICY_FLAGS_PAD_32, Master_key_identifier: id}
	efd, err := unix.Open(abs(tree, "enc"), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(efd), unix.FS_IOC_SET_ENCRYPTION_POLICY, uintptr(unsafe.Pointer(&pol)))
	unix.Close(efd)
	if e != 0 {
		t.Skipf("cannot set an fscrypt policy: %v", e)
	}
	treetest.PutAll(t, tree, map[string]string{"enc/one.txt": "1", "enc/two.txt": "2", "plain.txt": "p"})
	if _, flags, err := fscryptKey(mfd, nil, id, false); err != nil || flags != 0 {
		t.Skipf("cannot remove the fscrypt key: %v (status %#x)", err, flags)
	}
	if ents, err := os.ReadDir(abs(tree, "enc")); err != nil || len(ents) != 2 || ents[0].Name() == "one.txt" {
		t.Skipf("the locked directory lists %v, %v: not ciphertext names", ents, err)
	}
	time.Sleep(settle)
	s := newStore(t)
	cache := NewStatCache(s.Backend())
	before := dirStatOf(t, abs(tree, "enc"))
	r1 := snap(t, tree, s, Options{Cache: cache}) // the key absent: ciphertext names, unreadable files
	if _, _, err := fscryptKey(mfd, raw, id, true); err != nil {
		t.Fatal(err)
	}
	if after := dirStatOf(t, abs(tree, "enc")); after != before {
		t.Skipf("adding the key changed the directory's stat here (%v, was %v)", after, before)
	}
	r2 := snap(t, tree, s, Options{Cache: cache, Previous: r1.Root})
	got := flatten(t, s, r2.Root)
	for _, p := range []string{"enc/one.txt", "enc/two.txt"} {
		if _, ok := got[p]; !ok {
			t.Errorf("%s is not captured once the key is back", p)
		}
	}
	sameSnapshot(t, "with the key back", got, fullWalk(t, tree))
}

// TestDirhStatAsFstat: a directory's stat as stat takes it (statx) is
// what fstat gives, so that records written from either agree.
func TestDirhStatAsFstat(t *testing.T) {
	dir := t.TempDir()
	d, err := openRootDir(openRoot(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	got, ok := d.stat(&statInfo{})
	if !ok {
		t.Skip("listings are not cached here")
	}
	var st unix.Stat_t
	if err := unix.Fstat(d.fd, &st); err != nil {
		t.Fatal(err)
	}
	var si statInfo
	si.setStat("", &st)
	if want := (dirStat{fileStat: statFunc(&si), dev: st.Dev}); got != want {
		t.Errorf("stat %+v, fstat %+v", got, want)
	}
}
