//go:build linux

package gen

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/turnback/turnback/bench/truth"
)

// Generate writes the layout under root (which must not exist) with
// workers goroutines (< 1: twice the CPU count) and returns its ground
// truth. progress, when not nil, is called every 10 seconds.
func (L *Layout) Generate(root string, workers int, progress func(done, total int)) (*truth.State, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	for _, d := range L.dirs[1:] {
		if err := os.Mkdir(filepath.Join(root, filepath.FromSlash(d)), 0o755); err != nil {
			return nil, err
		}
	}
	ref := truth.New()
	if workers < 1 {
		workers = 2 * runtime.NumCPU()
	}
	var next, done atomic.Int64
	var wg sync.WaitGroup
	var firstErr atomic.Pointer[error]
	stop := reportProgress(progress, &done, len(L.specs))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for firstErr.Load() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(L.specs) {
					return
				}
				if err := L.write(root, &L.specs[i], ref); err != nil {
					firstErr.CompareAndSwap(nil, &err)
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	stop()
	if e := firstErr.Load(); e != nil {
		return nil, *e
	}
	for _, d := range L.dirs {
		if err := ref.AddStat(d, filepath.Join(root, filepath.FromSlash(d)), [16]byte{}, ""); err != nil {
			return nil, err
		}
	}
	ref.Index()
	return ref, nil
}

// reportProgress calls progress every 10 seconds until the returned stop
// is called.
func reportProgress(progress func(done, total int), done *atomic.Int64, total int) (stop func()) {
	if progress == nil {
		return func() {}
	}
	stopc := make(chan struct{})
	go func() {
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				progress(int(done.Load()), total)
			case <-stopc:
				return
			}
		}
	}()
	return func() { close(stopc) }
}

// write writes one file or symlink of the layout and adds it to ref.
func (L *Layout) write(root string, s *fileSpec, ref *truth.State) error {
	abs := filepath.Join(root, filepath.FromSlash(s.path))
	if s.kind == gSymlink {
		if err := os.Symlink(s.link, abs); err != nil {
			return err
		}
		return ref.AddStat(s.path, abs, [16]byte{}, s.link)
	}
	f, err := os.OpenFile(abs, os.O_CREATE|os.O_EXCL|os.O_WRONLY, os.FileMode(s.perm))
	if err != nil {
		return err
	}
	h := truth.NewHash()
	err = L.content(s, io.MultiWriter(f, h))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(abs, os.FileMode(s.perm)) // umask
	}
	if err != nil {
		return err
	}
	return ref.AddStat(s.path, abs, truth.Digest(h), "")
}
