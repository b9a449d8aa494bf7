package treetest

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
)

// DiskUsage is what du reports for dir: the space allocated to everything
// under it, files and directories, in bytes. Where the system gives no
// block counts it is the apparent size. Entries that vanish during the
// walk are skipped; any other error fails the test.
func DiskUsage(t testing.TB, dir string) int64 {
	t.Helper()
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			var fi fs.FileInfo
			if fi, err = d.Info(); err == nil {
				total += allocatedBytes(fi)
			}
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	})
	if err != nil {
		t.Fatalf("du %s: %v", dir, err)
	}
	return total
}
