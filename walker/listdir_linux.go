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
	return fstatatC(dirfd, b, st, raw)
}

// fstatatC is fstatat of the C string b.
func fstatatC(dirfd int, b []byte, st *unix.Stat_t, raw bool) error {
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

// sysStat views st as the syscall package's Stat_t: both are the
// kernel's struct stat, field for field, on the architectures this file
// builds for (the arrays below fail to compile if their sizes ever
// differ).
func sysStat(st *unix.Stat_t) *syscall.Stat_t { return (*syscall.Stat_t)(unsafe.Pointer(st)) }

var (
	_ [unsafe.Sizeof(unix.Stat_t{}) - unsafe.Sizeof(syscall.Stat_t{})]byte
	_ [unsafe.Sizeof(syscall.Stat_t{}) - unsafe.Sizeof(unix.Stat_t{})]byte
)

// statInfo is an fs.FileInfo made from an lstat, as os.Lstat makes it
// (same Mode bits, ModTime and a *syscall.Stat_t from Sys), without its
// allocations. It keeps only the fields turnback reads, in 96 bytes
// instead of the kernel's 144: a capture holds one per entry of every
// directory in progress. statOf, ownerOf and linkOf read it directly;
// Sys makes a Stat_t of those fields.
type statInfo struct {
	name       string
	size       int64
	mtim, ctim unix.Timespec
	ino, dev   uint64
	nlink      uint64
	mode       uint32 // the kernel's st_mode
	uid, gid   uint32
}

// setStat fills s from the kernel's stat st of name.
func (s *statInfo) setStat(name string, st *unix.Stat_t) {
	*s = statInfo{name: name, size: st.Size, mtim: st.Mtim, ctim: st.Ctim, ino: st.Ino, dev: st.Dev,
		nlink: uint64(st.Nlink), mode: st.Mode, uid: st.Uid, gid: st.Gid}
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.size }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.mtim.Unix()) }

// Sys returns a Stat_t holding the fields s keeps (the others zero).
func (s *statInfo) Sys() any {
	st := &unix.Stat_t{Dev: s.dev, Ino: s.ino, Mode: s.mode, Uid: s.uid, Gid: s.gid, Size: s.size, Mtim: s.mtim, Ctim: s.ctim}
	st.Nlink = typeOfNlink(st.Nlink, s.nlink)
	return sysStat(st)
}

// typeOfNlink converts n to the type of Stat_t's Nlink (its first
// argument), which differs between architectures.
func typeOfNlink[T uint32 | uint64](_ T, n uint64) T { return T(n) }

// asStatInfo returns fi as a statInfo, if it is one.
func asStatInfo(fi fs.FileInfo) (*statInfo, bool) {
	s, ok := fi.(*statInfo)
	return s, ok
}

func (s *statInfo) owner() (uid, gid uint32)         { return s.uid, s.gid }
func (s *statInfo) link() (id inodeID, nlink uint64) { return inodeID{dev: s.dev, ino: s.ino}, s.nlink }

// fileStat is statOf of s, read directly.
func (s *statInfo) fileStat() fileStat {
	return fileStat{size: s.size, mtime: time.Unix(s.mtim.Unix()).UnixNano(), ctime: s.ctim.Nano(), ino: s.ino, mode: uint32(s.Mode())}
}

// Mode converts the lstat mode as os does (os.fillFileStatFromSys).
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.mode & 0o777)
	switch s.mode & unix.S_IFMT {
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
	if s.mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
