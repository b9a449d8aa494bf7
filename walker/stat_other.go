//go:build !linux && !darwin

package walker

import "io/fs"

// statOf extracts the change-detection fields of fi. Without a portable
// ctime or inode, size, mtime and mode decide alone.
func statOf(fi fs.FileInfo) fileStat {
	return fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: uint32(fi.Mode())}
}

// ownerOf: no portable owner; entries are recorded without one.
func ownerOf(fs.FileInfo) (uid, gid uint32, ok bool) { return 0, 0, false }

// linkOf: no portable inode identity; hard links are not recognised.
func linkOf(fs.FileInfo) (id inodeID, nlink uint64, ok bool) { return inodeID{}, 0, false }

const noAtime = 0

// recordFIFOs: fifos are skipped here, as restores can remake them on
// Linux only (package restore).
const recordFIFOs = false
