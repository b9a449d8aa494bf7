//go:build unix

package main

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"
)

// gcDU is what du reports for dir: the allocated blocks of everything
// under it (files and directories), in bytes.
func gcDU(t testing.TB, dir string) int64 {
	t.Helper()
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		total += int64(st.Blocks) * 512
		return nil
	})
	if err != nil {
		t.Fatalf("du %s: %v", dir, err)
	}
	return total
}
