//go:build linux && (amd64 || arm64)

package walker

import (
	"io/fs"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// direntBufs holds the buffers getdents fills, reused across directories.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// fstatatBuf is fstatat with the name made a C string in *cname (grown as
// needed), not in a new allocation per call. A listed name holds no NUL.
// raw: a raw system call (see dirh).
func fstatatBuf(dirfd int, name string, st *unix.Stat_t, cname *[]byte, raw bool) error {
	b := append(append((*cname)[:0], name...), 0)
	*cname = b
	call := unix.Syscall6
	if raw {
		call = unix.RawSyscall6
	}
	for {
		_, _, e := call(unix.SYS_NEWFSTATAT, uintptr(dirfd), uintptr(unsafe.Pointer(&b[0])),
			uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
		switch e {
		case 0:
			return nil
		case unix.EINTR:
			continue
		}
		return e
	}
}

// sysStat views st as the syscall package's Stat_t, which statOf,
// ownerOf and linkOf read: both are the kernel's struct stat, field for
// field, on the architectures this file builds for (the arrays below fail
// to compile if their sizes ever differ).
func sysStat(st *unix.Stat_t) *syscall.Stat_t { return (*syscall.Stat_t)(unsafe.Pointer(st)) }

var (
	_ [unsafe.Sizeof(unix.Stat_t{}) - unsafe.Sizeof(syscall.Stat_t{})]byte
	_ [unsafe.Sizeof(syscall.Stat_t{}) - unsafe.Sizeof(unix.Stat_t{})]byte
)

// statInfo is an fs.FileInfo made from an lstat, as os.Lstat makes it
// (same Mode bits, ModTime and a *syscall.Stat_t from Sys), without its
// allocations.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s *statInfo) Sys() any           { return sysStat(&s.st) }

// Mode converts the lstat mode as os does (os.fillFileStatFromSys).
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & unix.S_IFMT {
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	}
	if s.st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
