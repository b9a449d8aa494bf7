//go:build !linux

package cas

import "os"

// preallocate: only Linux allocates ahead here (see reserve.go).
func preallocate(*os.File, int64, int64) error { return errNoPrealloc }
