package ref

import (
	"fmt"
	"os"
)

// cloneInto: clonefile(2) creates its target rather than filling an open
// file, so macOS clones are not made yet (APFS files stay unprotected
// unless Git LFS or git holds them).
func cloneInto(dst, src *os.File) error {
	return fmt.Errorf("%w: not implemented on macOS", ErrNoClone)
}
