//go:build !linux

package cli

import "io/fs"

const listNoAtime = 0

// fileAtime is not compared outside Linux.
func fileAtime(fs.FileInfo) (int64, bool) { return 0, false }
