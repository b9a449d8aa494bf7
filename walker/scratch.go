package walker

import (
	"sync"
	"unsafe"

	"github.com/turnback/turnback/manifest"
)

// dirScratch holds the per-entry slices of one directory's capture
// (its listing, the entries it builds, their stat cache data), reused
// from one directory to the next through scratchPool. A capture then
// allocates them about once per worker instead of once per directory:
// on a tree that did not change they were most of the bytes a capture
// allocated, and so most of its garbage collection. Nothing a capture
// keeps once a directory is done may point into them (names are
// strings, which the slices only refer to).
type dirScratch struct {
	names []string
	infos []statInfo // the listing's lstat results (Linux)
	ents  []dirEnt
	out   []manifest.Entry
	keep  []bool
	fresh []*cacheEntry
	rec   []cacheEntry // the directory's new stat cache record
	extra []string     // the new record's extra listed names
	cname []byte       // a name with its NUL, for fstatat
	enc   []byte       // the directory's tree, encoded
	path  []byte       // joined's buffer
	// tracked: what git tracks in the directory (noteTrackedIgnored).
	tracked []byte
	// named: the directories there with a built-in name git tracks
	// paths in (noteTrackedIgnored).
	named []string
	// oldRec is the directory's record as the capture found it, newRec
	// the one it builds (see dir for which arrays they hold).
	oldRec, newRec dirRecord
	dirInfo        statInfo // the directory's own stat (Linux)
}

// joined returns rel/name in s's buffer, valid only until the next call
// and never to be kept: for the ignore matcher, which keeps nothing, so
// that a name that needs no path of its own costs no allocation.
func (s *dirScratch) joined(rel, name string) string {
	if rel == "" {
		return name
	}
	s.path = append(append(append(s.path[:0], rel...), '/'), name...)
	return unsafe.String(unsafe.SliceData(s.path), len(s.path))
}

var scratchPool = sync.Pool{New: func() any { return new(dirScratch) }}

// maxPooled: a directory with more entries than this gets slices of its
// own, so that one huge directory does not pin its memory in the pool.
const maxPooled = 1 << 14

func getScratch() *dirScratch { return scratchPool.Get().(*dirScratch) }

func (s *dirScratch) release() {
	if cap(s.ents) > maxPooled || cap(s.out) > maxPooled || cap(s.names) > maxPooled || cap(s.enc) > maxPooled*64 || cap(s.tracked) > maxPooled*64 {
		return
	}
	scratchPool.Put(s)
}

// sized returns s resized to n zero values, reusing its array if it is
// large enough.
func sized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// emptied returns s emptied, reusing its array if it can hold n values.
// (Arrays sized exactly: the live scratches are many, and a growth
// margin cost more than the arrays made again.)
func emptied[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, n)
	}
	return s[:0]
}
