package walker

import (
	"fmt"
	"math/bits"
	"sync"
	"unsafe"

	"github.com/turnback/turnback/manifest"
)

// arrays are the per-entry arrays of the directories a capture has in
// progress, kept by capacity once a directory is done and handed to the
// next that needs one that large. A capture then holds about what its
// directories in progress need at once. Each directory's scratch used to
// keep its own arrays, grown to fit: between them they held several
// times that, and none was collected (a command runs without garbage
// collection, see cmd/turnback/diag/gc.go).
type arrays struct {
	strings freeList[string] // listings and extra names
	infos   freeList[statInfo]
	ents    freeList[dirEnt]
	out     freeList[manifest.Entry]
	keep    freeList[bool]
	fresh   freeList[*cacheEntry]
	recs    freeList[cacheEntry]
	subs    freeList[subEntry]
	bytes   freeList[byte]
	tasks   freeList[subTask]
}

// arraysPool passes one capture's arrays to the next.
var arraysPool = sync.Pool{New: func() any { return new(arrays) }}

func getArrays() *arrays { return arraysPool.Get().(*arrays) }

// release keeps a's arrays for the next capture. What they still refer
// to stays alive until then, or until the pool drops them at a garbage
// collection, as a scratch's arrays did (clearing them would touch the
// pages of their tails that no directory used).
func (a *arrays) release() { arraysPool.Put(a) }

// freeList holds arrays by capacity class: class k holds arrays of a
// capacity of at least 1<<k.
type freeList[T any] struct {
	mu   sync.Mutex
	free [maxClass + 1][][]T
}

// maxClass bounds the classes: class 24 holds 16M values.
const maxClass = 24

// maxArray: an array of more bytes is left to the collector, so that
// one huge directory does not pin its memory.
const maxArray = 2 << 20

// pooled reports whether l keeps arrays of class k.
func (l *freeList[T]) pooled(k int) bool {
	var v T
	return k <= maxClass && uintptr(1)<<k*unsafe.Sizeof(v) <= maxArray
}

// get returns an empty slice of a capacity of at least n: an array of
// l's, else a new one of the next power of two (exactly n if l is nil).
func (l *freeList[T]) get(n int) []T {
	if n <= 0 {
		return nil
	}
	if l == nil {
		return make([]T, 0, n)
	}
	k := bits.Len(uint(n - 1)) // 1<<k >= n
	if !l.pooled(k) {
		return make([]T, 0, n)
	}
	l.mu.Lock()
	for j := k; j <= min(k+1, maxClass); j++ {
		if f := l.free[j]; len(f) > 0 {
			s := f[len(f)-1]
			f[len(f)-1] = nil
			l.free[j] = f[:len(f)-1]
			l.mu.Unlock()
			return s[:0]
		}
	}
	l.mu.Unlock()
	return make([]T, 0, 1<<k)
}

// put gives l the array of s, which its caller no longer uses.
func (l *freeList[T]) put(s []T) {
	if l == nil || cap(s) == 0 {
		return
	}
	k := bits.Len(uint(cap(s))) - 1 // 1<<k <= cap(s)
	if !l.pooled(k) {
		return
	}
	l.mu.Lock()
	if checkArrays {
		l.check(s)
	}
	if len(l.free[k]) < maxFree {
		l.free[k] = append(l.free[k], s[:0])
	}
	l.mu.Unlock()
}

// maxFree bounds the arrays a class keeps. A list that is given more
// arrays than it hands out would otherwise keep them all, and what they
// refer to: the listings of 90,000 directories, 57 MB of a first
// capture of a million files, held until its end.
const maxFree = 256

// checkArrays (tests): put zeroes the array it gets, so that a use after
// put reads zeros, and tells testHookArrayMisuse of one it holds already.
var (
	checkArrays         bool
	testHookArrayMisuse func(msg string)
)

// check is put's check of s, under l.mu.
func (l *freeList[T]) check(s []T) {
	p := unsafe.SliceData(s[:1])
	for _, f := range l.free {
		for _, a := range f {
			if unsafe.SliceData(a[:1]) == p && testHookArrayMisuse != nil {
				testHookArrayMisuse(fmt.Sprintf("walker: an array of %d %T put twice", cap(s), s))
			}
		}
	}
	clear(s[:cap(s)])
}

// sized returns s resized to n zero values, reusing its array if it is
// large enough, else taking one from l (which gets s's back).
func sized[T any](l *freeList[T], s []T, n int) []T {
	if cap(s) < n {
		l.put(s)
		s = l.get(n)
	}
	s = s[:n]
	clear(s)
	return s
}

// emptied returns s emptied, reusing its array if it can hold n values,
// else taking one from l (which gets s's back).
func emptied[T any](l *freeList[T], s []T, n int) []T {
	if cap(s) < n {
		l.put(s)
		return l.get(n)
	}
	return s[:0]
}
