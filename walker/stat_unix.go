//go:build linux || darwin

package walker

import (
	"io/fs"
	"syscall"
)

// statOf extracts the change-detection fields of fi.
func statOf(fi fs.FileInfo) fileStat {
	if si, ok := asStatInfo(fi); ok {
		return si.fileStat() // no Stat_t made for Sys
	}
	st := fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: uint32(fi.Mode())}
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ctime = ctimeOf(s)
		st.ino = s.Ino
	}
	return st
}

// ownerOf returns the numeric owner of fi; ok is false where the
// platform has none.
func ownerOf(fi fs.FileInfo) (uid, gid uint32, ok bool) {
	if si, ok := asStatInfo(fi); ok {
		uid, gid := si.owner()
		return uid, gid, true
	}
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		return s.Uid, s.Gid, true
	}
	return 0, 0, false
}

// linkOf returns the identity of fi's inode and its link count; ok is
// false where the platform has none.
func linkOf(fi fs.FileInfo) (id inodeID, nlink uint64, ok bool) {
	if si, ok := asStatInfo(fi); ok {
		id, nlink := si.link()
		return id, nlink, true
	}
	if s, ok := fi.Sys().(*syscall.Stat_t); ok {
		return inodeID{dev: uint64(s.Dev), ino: s.Ino}, uint64(s.Nlink), true
	}
	return inodeID{}, 0, false
}
