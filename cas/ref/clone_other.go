//go:build !linux && !darwin

package ref

import (
	"fmt"
	"os"
)

func cloneInto(dst, src *os.File) error {
	return fmt.Errorf("%w: not supported on this platform", ErrNoClone)
}
