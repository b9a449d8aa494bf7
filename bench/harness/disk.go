//go:build linux

package harness

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/turnback/turnback/bench/truth"
)

// dropPageCache writes dirty pages back and drops the clean ones from
// the page cache (root only): what the engines wrote before no longer
// competes with the tree for the cache.
func dropPageCache() error {
	syscall.Sync()
	return os.WriteFile("/proc/sys/vm/drop_caches", []byte("1"), 0)
}

// prewarm reads every regular file of the tree once.
func prewarm(root string) error {
	buf := sync.Pool{New: func() any { b := make([]byte, 1<<20); return &b }}
	return truth.Walk(root, 0, func(rel string, fi fs.FileInfo) error {
		if !fi.Mode().IsRegular() {
			return nil
		}
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil
		}
		defer f.Close()
		b := buf.Get().(*[]byte)
		defer buf.Put(b)
		for {
			if _, err := f.Read(*b); err != nil {
				return nil
			}
		}
	})
}

// diskUsage is the disk use of a directory tree: allocated blocks, as du
// reports them, each inode counted once.
func diskUsage(root string) (int64, error) {
	var total atomic.Int64
	var mu sync.Mutex
	inodes := map[uint64]bool{}
	err := truth.Walk(root, 0, func(rel string, fi fs.FileInfo) error {
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		if st.Nlink > 1 {
			mu.Lock()
			dup := inodes[st.Ino]
			inodes[st.Ino] = true
			mu.Unlock()
			if dup {
				return nil
			}
		}
		total.Add(st.Blocks * 512)
		return nil
	})
	return total.Load(), err
}
