//go:build unix

package turnback_test

import (
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"
)

// retDU is what du reports for dir: allocated blocks, in bytes.
func retDU(t *testing.T, dir string) int64 {
	t.Helper()
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			return err
		}
		total += int64(st.Blocks) * 512
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total
}
