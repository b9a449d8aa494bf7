//go:build !unix

package watch

import "io/fs"

// idOf returns the identity of the file fi describes: zero (unknown)
// here, so the watcher relies on fsnotify alone.
func idOf(fs.FileInfo) fileID { return fileID{} }
