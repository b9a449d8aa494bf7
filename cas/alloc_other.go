//go:build !unix

package cas

import "io/fs"

func allocated(fi fs.FileInfo) int64 { return fi.Size() }
