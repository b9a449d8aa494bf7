//go:build !unix

package restore

import "os"

// renameBetween falls back to a rename through the work tree's root
// (confined to it, but resolving the path again) where renameat(2) is
// not available.
func renameBetween(_ *os.Root, _ string, _ *os.Root, _ string, fallback func() error) error {
	return fallback()
}
