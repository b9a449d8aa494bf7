//go:build !unix

package main

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
)

// gcDU is the apparent size of everything under dir (no block counts
// here).
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
		if fi, err := d.Info(); err == nil {
			total += fi.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatalf("du %s: %v", dir, err)
	}
	return total
}
