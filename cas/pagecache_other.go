//go:build !linux

package cas

import "os"

// dropCache is advice that only Linux takes (see pagecache_linux.go).
func dropCache(*os.File) {}
