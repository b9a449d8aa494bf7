//go:build !unix

package ref

import "os"

// openNoBlock opens name for reading (no FIFOs that block in open here).
func openNoBlock(name string) (*os.File, error) { return os.Open(name) }
