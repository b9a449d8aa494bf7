//go:build !unix

package gitindex

import "io/fs"

// StampOf is the Stamp of the index file path whose stat is fi.
func StampOf(path string, fi fs.FileInfo) Stamp {
	return Stamp{Path: path, Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
}
