//go:build linux && (amd64 || arm64)

package walker

import (
	"io/fs"
	"os"
	"sort"
	"time"
	"unsafe"

	"github.com/turnback/turnback/walker/dirent"
	"golang.org/x/sys/unix"
)

// dirh is one directory of the work tree, open as a bare descriptor.
// Everything below it is reached by one path component at a time
// (openat, fstatat, readlinkat with a name from its own listing, never
// "." or ".." and never following a symlink: O_NOFOLLOW,
// AT_SYMLINK_NOFOLLOW), so nothing outside the directory is ever
// reached, as with an os.Root, at one system call per open and none of
// an os.File's bookkeeping (an os.Root opens a directory twice, once
// for itself and once to list it, and registers each with the poller).
// Safe for concurrent openDir, openFile and readlink once listed.
//
// On a local filesystem (localFS) the entries are lstat'ed with a raw
// system call, which skips the Go scheduler's bookkeeping around it (a
// few percent of a no-change capture's CPU); elsewhere (a network
// filesystem, where an lstat can take milliseconds and many should be in
// flight) with an ordinary one. A subdirectory on another device (a
// mount point, seen in its parent's listing) is judged by itself.
//
// A subdirectory's handle may be lazy (dirh_lazy_linux.go): not opened
// until something needs its descriptor, its names lstat'ed by path
// through an open ancestor meanwhile. Such a path never leaves the work
// tree unless a directory on it is replaced by a symlink during the
// capture; then the lstat may see a file outside, and nothing is read
// from it (a read opens the directory, one component at a time, and
// checks that it is the one lstat'ed).
type dirh struct {
	fd     int // -1 while a lazy handle is not open
	lazy   *lazy
	listed bool
	raw    bool              // entries lstat'ed with a raw system call
	vouch  bool              // its stat may vouch for its names (see stat)
	dev    uint64            // the directory's device
	mounts map[string]uint64 // subdirectories on another device (from list)
}

// localFS reports whether the filesystem of the open directory fd is a
// local disk or memory filesystem, whose lstat never waits long.
func localFS(fd int) bool {
	local, _ := fsTraits(fd)
	return local
}

// fsTraits reports whether the filesystem of the open directory fd is
// local (see localFS), and whether a directory's stat there vouches for
// its names (see dirh.stat): on a local one but overlayfs, where a
// merged directory's stat is its upper directory's while its names are
// those of every layer, and a lower layer may change while the overlay
// is not mounted (the directory's stat unchanged once it is again).
func fsTraits(fd int) (local, vouch bool) {
	var st unix.Statfs_t
	if unix.Fstatfs(fd, &st) != nil {
		return false, false
	}
	switch uint32(st.Type) {
	case unix.OVERLAYFS_SUPER_MAGIC:
		return true, false
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC,
		unix.F2FS_SUPER_MAGIC, 0x2fc12fc1 /* zfs */, 0xca451a4e /* bcachefs */ :
		return true, true
	}
	return false, false
}

// racyWindow returns the racy window of stat data read through d (see
// trusted): the narrow one on a local filesystem, whose times come from
// this kernel's clock, and the default elsewhere (a server's clock).
func (d *dirh) racyWindow() time.Duration {
	if d.raw {
		return localRacyWindow
	}
	return racyWindow
}

// openRootDir opens the directory root names as a dirh of its own (the
// caller still closes root).
func openRootDir(root *os.Root) (*dirh, error) {
	f, err := openNoAtime(root, ".") // dup keeps O_NOATIME: listing it leaves its atime
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd, derr := -1, error(nil)
	if err := rc.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, &fs.PathError{Op: "dup", Path: root.Name(), Err: derr}
	}
	d := &dirh{fd: fd}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil {
		d.dev = st.Dev
		d.raw, d.vouch = fsTraits(fd)
	}
	return d, nil
}

func (d *dirh) close() {
	if fd, prefix := d.statBase(); prefix == "" && fd >= 0 {
		unix.Close(fd)
	}
}

// openat opens name in the directory dirfd without updating its access
// time where that is allowed (O_NOATIME needs the file's owner or
// CAP_FOWNER: EPERM otherwise, and then an ordinary open).
func openat(dirfd int, name string, flags int) (int, error) {
	flags |= unix.O_CLOEXEC | unix.O_NOFOLLOW
	if noAtime != 0 {
		fd, err := retryEINTR(func() (int, error) { return unix.Openat(dirfd, name, flags|noAtime, 0) })
		if err != unix.EPERM {
			return fd, err
		}
	}
	return retryEINTR(func() (int, error) { return unix.Openat(dirfd, name, flags, 0) })
}

func retryEINTR(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if err != unix.EINTR {
			return n, err
		}
	}
}

// openDir opens subdirectory name (a symlink there is refused, ELOOP or
// ENOTDIR, as is anything but a directory).
func (d *dirh) openDir(name string) (*dirh, error) {
	dfd, err := d.descriptor()
	if err != nil {
		return nil, err
	}
	fd, err := openat(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	sub := &dirh{fd: fd, dev: d.dev, raw: d.raw, vouch: d.vouch}
	if dev, ok := d.mounts[name]; ok {
		sub.dev = dev
		sub.raw, sub.vouch = fsTraits(fd)
	}
	return sub, nil
}

// openFile opens file name for reading (never through a symlink).
func (d *dirh) openFile(name string) (*os.File, error) {
	dfd, err := d.descriptor()
	if err != nil {
		return nil, err
	}
	fd, err := openat(dfd, name, unix.O_RDONLY)
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// readlink returns the target of symlink name.
func (d *dirh) readlink(name string) (string, error) {
	dfd, err := d.descriptor()
	if err != nil {
		return "", err
	}
	for size := 256; ; size *= 2 {
		buf := make([]byte, size)
		n, err := retryEINTR(func() (int, error) { return unix.Readlinkat(dfd, name, buf) })
		if err != nil {
			return "", &fs.PathError{Op: "readlinkat", Path: name, Err: err}
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// emptyPath is "" as a C string, for statx on a descriptor.
var emptyPath = [1]byte{}

// stat returns the directory's own stat, to vouch for a listing (see
// listing.go); false where a stat cannot: on a filesystem that is not
// local, where a directory's times may be cached or kept by another
// machine's clock, on overlayfs (see fsTraits), and for an encrypted
// directory (fscrypt), whose names are ciphertext while its key is
// absent and plaintext once it is added, the stat unchanged either way
// (a listing taken with the one would name nothing the other finds).
func (d *dirh) stat(si *statInfo) (dirStat, bool) {
	if !d.vouch {
		return dirStat{}, false
	}
	if l := d.lazy; l != nil {
		// The lstat its parent took, before any of its names. An
		// encrypted directory is not told apart here: its names, looked
		// up by path, are not found (see errRelist).
		*si = l.st
		return dirStat{fileStat: statFunc(si), dev: si.dev}, true
	}
	const need = unix.STATX_TYPE | unix.STATX_MODE | unix.STATX_INO | unix.STATX_SIZE | unix.STATX_MTIME | unix.STATX_CTIME
	var stx unix.Statx_t
	// A raw system call (the filesystem is local, see dirh) on the
	// descriptor itself: no path to convert.
	_, _, e := unix.RawSyscall6(unix.SYS_STATX, uintptr(d.fd), uintptr(unsafe.Pointer(&emptyPath[0])),
		unix.AT_EMPTY_PATH|unix.AT_SYMLINK_NOFOLLOW, need, uintptr(unsafe.Pointer(&stx)), 0)
	if e != 0 || stx.Attributes&unix.STATX_ATTR_ENCRYPTED != 0 || stx.Mask&need != need {
		return dirStat{}, false
	}
	// As fstat would have it, for statFunc; in the caller's memory (the
	// call through statFunc would put a copy on the heap).
	*si = statInfo{
		dev: unix.Mkdev(stx.Dev_major, stx.Dev_minor), ino: stx.Ino,
		mode: uint32(stx.Mode), uid: stx.Uid, gid: stx.Gid, size: int64(stx.Size),
		mtim: unix.Timespec{Sec: stx.Mtime.Sec, Nsec: int64(stx.Mtime.Nsec)},
		ctim: unix.Timespec{Sec: stx.Ctime.Sec, Nsec: int64(stx.Ctime.Nsec)},
	}
	return dirStat{fileStat: statFunc(si), dev: si.dev}, true
}

// list lists the directory, sorted by name, and lstats every entry with
// fstatat(AT_SYMLINK_NOFOLLOW) on its descriptor: a name from getdents
// is one path component, never "." or "..", so the lstat neither
// follows a symlink nor leaves the directory, at one system call and no
// os.FileInfo per entry. Entries that vanish before their lstat are left
// out. A directory readable but not searchable is an error (EACCES) as a
// whole, unless it is empty. A second list reads it again from its start.
//
// names, if not nil, are the directory's names (sorted, each one valid:
// see validName) as its record lists them: they are lstat'ed without
// reading the directory. sc.names is the listing either way.
func (d *dirh) list(sc *dirScratch, names []string) ([]dirEnt, error) {
	if sc == nil {
		sc = &dirScratch{}
	}
	fd, prefix := -1, ""
	if names == nil {
		var err error
		if names, err = d.getdents(sc.listBuf()); err != nil {
			return nil, err
		}
		fd = d.fd // open now
	} else {
		fd, prefix = d.statBase()
	}
	sc.names = names
	// One array each, not one per append that outgrows it. The scratch
	// holds them at once: the lists got its old ones.
	var entsL *freeList[dirEnt]
	var infosL *freeList[statInfo]
	if sc.lists != nil {
		entsL, infosL = &sc.lists.ents, &sc.lists.infos
	}
	ents := emptied(entsL, sc.ents, len(names))
	sc.ents = ents
	infos := sized(infosL, sc.infos, len(names))
	sc.infos = infos
	k := 0
	var st unix.Stat_t
	for _, name := range names {
		if testHookLstat != nil {
			testHookLstat(name)
		}
		si := &infos[k]
		err := fstatatIn(fd, prefix, name, &st, &sc.cname, d.raw)
		if err != nil && prefix != "" {
			// By path, a name not found, or found through something
			// that is not this directory (ENOTDIR, ELOOP), says the
			// listing is not this directory's any more.
			return nil, errRelist
		}
		if err == unix.ENOENT {
			continue
		}
		if err == unix.EACCES {
			// No search permission on the directory (lstat needs it, as
			// any open below it would): the directory cannot be read,
			// as if its own open had failed.
			return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
		}
		if err != nil {
			ents = append(ents, dirEnt{name: name, err: &fs.PathError{Op: "lstat", Path: name, Err: err}})
			continue
		}
		si.setStat(name, &st)
		ents = append(ents, dirEnt{name: name, fi: si})
		k++
		if si.dev != d.dev && si.mode&unix.S_IFMT == unix.S_IFDIR {
			if d.mounts == nil {
				d.mounts = map[string]uint64{}
			}
			d.mounts[name] = si.dev
		}
	}
	sc.ents = ents
	return ents, nil
}

// getdents appends the directory's names to names, sorted.
func (d *dirh) getdents(names []string) ([]string, error) {
	fd, err := d.descriptor()
	if err != nil {
		return nil, err
	}
	if testHookGetdents != nil {
		testHookGetdents(fd)
	}
	if d.listed {
		if _, err := unix.Seek(fd, 0, 0); err != nil {
			return nil, &fs.PathError{Op: "seek", Path: ".", Err: err}
		}
	}
	d.listed = true
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		n, err := retryEINTR(func() (int, error) { return unix.ReadDirent(fd, buf) })
		if err != nil {
			return nil, &fs.PathError{Op: "readdirent", Path: ".", Err: err}
		}
		if n <= 0 {
			break
		}
		names = dirent.Names(buf[:n], names)
	}
	sort.Strings(names)
	return names, nil
}
