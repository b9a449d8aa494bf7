//go:build !unix

package cas

import (
	"fmt"
	"os"
)

// lockFreed: elsewhere the pauses alone pace a wait for the store.
func lockFreed(string, bool, <-chan struct{}) <-chan struct{} { return nil }

// canLockDir: elsewhere Badger takes its directory lock itself, and a
// deferred open is an ordinary write-mode open.
const canLockDir = false

func lockDir(dir string) (*os.File, error) {
	return nil, fmt.Errorf("cas: lock %s: not supported here", dir)
}
