//go:build unix

package ref

import (
	"os"
	"syscall"
)

// openNoBlock opens name with O_NONBLOCK: opening a FIFO then returns at
// once instead of waiting for a writer. Reads of a regular file ignore
// the flag.
func openNoBlock(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
