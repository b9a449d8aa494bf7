//go:build linux

package truth

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

// Walk calls fn for every path under root (root itself as "") from
// several goroutines; fn must be safe for concurrent use. A directory is
// listed before its entries are handed to fn; the walk descends into
// every directory whatever fn returns for it. workers < 1 picks a number
// from the CPU count. The first error ends the walk.
func Walk(root string, workers int, fn func(rel string, fi fs.FileInfo) error) error {
	if workers < 1 {
		workers = max(4, 2*runtime.NumCPU())
	}
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	var firstErr atomic.Pointer[error]
	fail := func(err error) {
		firstErr.CompareAndSwap(nil, &err)
	}
	var walk func(rel string)
	walk = func(rel string) {
		if firstErr.Load() != nil {
			return
		}
		ents, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			fail(err)
			return
		}
		for _, de := range ents {
			p := de.Name()
			if rel != "" {
				p = rel + "/" + p
			}
			fi, err := de.Info()
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				fail(err)
				return
			}
			if err := fn(p, fi); err != nil {
				fail(err)
				return
			}
			if fi.IsDir() {
				select {
				case sem <- struct{}{}:
					wg.Add(1)
					go func() {
						defer wg.Done()
						walk(p)
						<-sem
					}()
				default:
					walk(p)
				}
			}
		}
	}
	fi, err := os.Lstat(root)
	if err != nil {
		return err
	}
	if err := fn("", fi); err != nil {
		return err
	}
	walk("")
	wg.Wait()
	if e := firstErr.Load(); e != nil {
		return *e
	}
	return nil
}

// Scan reads a whole tree into a State, every file hashed (a folder
// benchmarked in place, which has no other reference).
func Scan(root string) (*State, error) {
	s := New()
	err := Walk(root, 0, func(rel string, fi fs.FileInfo) error {
		var e Entry
		StatEntry(&e, fi)
		link := ""
		abs := filepath.Join(root, filepath.FromSlash(rel))
		switch e.Kind {
		case KindFile:
			sum, n, err := HashFile(abs)
			if err != nil {
				return err
			}
			e.Sum, e.Size = sum, n
			// stat again: the hash belongs to this stat data only if the
			// file did not change while it was read.
			fi2, err := os.Lstat(abs)
			if err != nil {
				return err
			}
			var e2 Entry
			StatEntry(&e2, fi2)
			if e2.Ctime != e.Ctime || e2.Size != n {
				return fmt.Errorf("truth: %s changed while it was read", abs)
			}
		case KindSymlink:
			t, err := os.Readlink(abs)
			if err != nil {
				return err
			}
			link = t
			if link == "" {
				link = "\x00"
			}
		case 0:
			return nil // sockets and devices are not part of the reference
		}
		s.Add(rel, e, link)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.Index()
	return s, nil
}
