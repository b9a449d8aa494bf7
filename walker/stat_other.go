//go:build !linux && !darwin

package walker

import "io/fs"

// statOf extracts the change-detection fields of fi. Without a portable
// ctime or inode, size, mtime and mode decide alone.
func statOf(fi fs.FileInfo) fileStat {
	return fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: uint32(fi.Mode())}
}

const noAtime = 0
