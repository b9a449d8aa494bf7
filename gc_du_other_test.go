//go:build !unix

package turnback_test

import (
	"io/fs"
	"path/filepath"
	"testing"
)

// retDU is the apparent size of everything under dir (no block counts
// here).
func retDU(t *testing.T, dir string) int64 {
	t.Helper()
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if fi, err := d.Info(); err == nil {
			total += fi.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total
}
