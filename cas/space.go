package cas

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Full disks (see "Full disks" in the package doc).
//
// Badger writes its memtables, tables and value log through mmapped
// files it sizes with ftruncate: their pages get disk blocks only when
// first written, and when the disk is full that write is a SIGBUS that
// kills the process, not an error. So Badger must never be the one to
// find the disk full. A store opened for writing keeps a reserve free:
// OpenBadger refuses to open when less than the reserve is free, and
// every write turnback makes (pack values, batch entries, Set, Update)
// first checks that it leaves the reserve free, failing with a
// *NoSpaceError otherwise. Badger's own writes (memtable files of
// 2 x 8 MiB, the level-0 table a memtable is flushed to, compactions)
// come out of the reserve.
//
// Another process may take the reserve while the store is open. So a
// commit into Badger (Set, Update, Delete, the fold of the overlay
// log) measures the free space anew (fresh), a write-mode open
// allocates its memtable files' blocks where it can (prepareMemtables),
// and Close skips the memtable's flush when it cannot fit: the log,
// synced, is replayed at the next write-mode open (fullclose.go).

// ErrNoSpace: the store's disk has too little free space. Errors wrapping
// it are *NoSpaceError values; errors.Is(err, syscall.ENOSPC) also holds.
var ErrNoSpace = errors.New("cas: no space left")

// reserveBase is the space a store opened for writing keeps free for
// Badger; a quarter of the tables' size is added (a compaction rewrites
// tables before deleting the old ones), up to reserveMax. Variables for
// tests.
var (
	reserveBase int64 = 64 << 20
	reserveMax  int64 = 1 << 30
)

// spaceRecheck: the free space is asked again after this many bytes were
// written since the last ask (and whenever a write would dip into the
// reserve).
const spaceRecheck = 4 << 20

// NoSpaceError reports a store whose disk is (nearly) full.
type NoSpaceError struct {
	Device string // the file system: its device, or its mount point
	Store  string // the store directory
	Need   int64  // bytes to free
	Err    error  // the write error, if a write failed (else nil)
}

func (e *NoSpaceError) Error() string {
	mb := (e.Need + 1<<20 - 1) >> 20
	return fmt.Sprintf("no space left on %s (store %s): free %d MB or move the store", e.Device, e.Store, max(mb, 1))
}

// Is makes errors.Is(err, ErrNoSpace) and errors.Is(err, syscall.ENOSPC)
// true. Unwrap is deliberately absent: a failed pack write must not look
// like a *fs.PathError (a file that could not be read) to callers.
func (e *NoSpaceError) Is(target error) bool {
	return target == ErrNoSpace || target == syscall.ENOSPC
}

// spaceGuard keeps a store's reserve free.
type spaceGuard struct {
	dir     string // the Badger directory
	name    string // the store, as messages name it
	reserve int64

	mu      sync.Mutex
	known   bool  // free was measured
	free    int64 // free bytes when last measured
	written int64 // bytes written since
}

// newSpaceGuard sizes the reserve of the database in dir.
func newSpaceGuard(dir, name string) *spaceGuard {
	var tables int64
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".sst") {
				if fi, err := e.Info(); err == nil {
					tables += fi.Size()
				}
			}
		}
	}
	if name == "" {
		name = dir
	}
	return &spaceGuard{dir: dir, name: name, reserve: min(reserveBase+tables/4, reserveMax)}
}

// check reports whether n more bytes can be written leaving the reserve
// free, and counts them as written.
func (g *spaceGuard) check(n int64) error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.known || g.written+n >= spaceRecheck || g.free-g.written-n < g.reserve {
		free, ok := freeSpace(g.dir)
		if !ok {
			return nil // unknown on this platform: Badger's own errors stand
		}
		g.known, g.free, g.written = true, free, 0
	}
	if g.free-g.written-n < g.reserve {
		return g.errorFor(g.reserve+n-(g.free-g.written), nil)
	}
	g.written += n
	return nil
}

// fresh is check with the free space measured now: for a commit into
// Badger, which another process filling the disk since the last
// measure must not surprise (a write into its memtable map is a SIGBUS).
func (g *spaceGuard) fresh(n int64) error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	g.known = false
	g.mu.Unlock()
	return g.check(n)
}

func (g *spaceGuard) errorFor(need int64, err error) *NoSpaceError {
	return &NoSpaceError{Device: deviceOf(g.dir), Store: g.name, Need: need, Err: err}
}

// wrapNoSpace turns an ENOSPC from writing in dir into a *NoSpaceError,
// and strips a *fs.PathError from other write errors (keeping its errno):
// a capture takes a PathError from PutFile for a file it could not read.
func wrapNoSpace(dir string, err error) error {
	return wrapNoSpaceNamed(dir, "", err)
}

// wrapNoSpaceNamed is wrapNoSpace naming the store name in messages
// (default: dir).
func wrapNoSpaceNamed(dir, name string, err error) error {
	if err == nil {
		return nil
	}
	var ns *NoSpaceError
	if errors.As(err, &ns) {
		return err
	}
	if errors.Is(err, syscall.ENOSPC) {
		g := newSpaceGuard(dir, name)
		need := g.reserve
		if free, ok := freeSpace(dir); ok {
			need = max(g.reserve-free, 1<<20)
		}
		return g.errorFor(need, err)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %s: %w", pe.Op, pe.Path, pe.Err)
	}
	return err
}

// deviceOf names the file system holding dir: its device (/dev/...) or,
// for one without (tmpfs, overlay), "<type> at <mount point>".
func deviceOf(dir string) string {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "the disk of " + real
	}
	best, dev := "", ""
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		sep := -1
		for i, s := range f {
			if s == "-" {
				sep = i
				break
			}
		}
		if len(f) < 5 || sep < 0 || sep+2 >= len(f) {
			continue
		}
		mp := unescapeMount(f[4])
		if !within(mp, real) || len(mp) < len(best) {
			continue
		}
		best = mp
		if src := f[sep+2]; strings.HasPrefix(src, "/dev/") {
			dev = src
		} else {
			dev = f[sep+1] + " at " + mp
		}
	}
	if dev == "" {
		return "the disk of " + real
	}
	return dev
}

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	if dir == "/" || p == dir {
		return true
	}
	return strings.HasPrefix(p, dir+"/")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			v := 0
			ok := true
			for _, c := range s[i+1 : i+4] {
				if c < '0' || c > '7' {
					ok = false
					break
				}
				v = v*8 + int(c-'0')
			}
			if ok {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
