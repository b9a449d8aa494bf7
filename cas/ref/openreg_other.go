//go:build !unix

package ref

import "os"

// openNoBlock opens name for reading (no FIFOs that block in open here).
func openNoBlock(name string) (*os.File, error) {
	if noAtime != 0 {
		if f, err := os.OpenFile(name, os.O_RDONLY|noAtime, 0); err == nil {
			return f, nil
		}
	}
	return os.Open(name)
}

// linkCount: unknown here, taken as 1.
func linkCount(fi os.FileInfo) uint64 { return 1 }
