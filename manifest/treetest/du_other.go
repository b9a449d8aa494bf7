//go:build !unix

package treetest

import "io/fs"

// allocatedBytes: no block counts here, the apparent size.
func allocatedBytes(fi fs.FileInfo) int64 { return fi.Size() }
