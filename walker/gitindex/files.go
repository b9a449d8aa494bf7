package gitindex

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"maps"
	"math/bits"
	"slices"
	"sort"
)

// restartEvery is how many paths of a fileList share one restart point.
const restartEvery = 16

// fileList is the sorted paths of a Set's tracked files, each stored as
// the bytes it shares with the one before (a count) and the rest. Every
// restartEvery-th path shares nothing and restarts holds its offset: a
// lookup binary-searches them and decodes at most restartEvery paths.
// A Bloom filter, sized by the index's size to at least 2 bytes a
// path, answers most lookups of paths absent (an ignored file's usual
// answer) with one memory read. An index out of order (git never
// writes one) switches to a map for lookups; the list is then built
// sorted once the index is read, for listings.
type fileList struct {
	data     []byte
	restarts []uint32
	n        int
	last     []byte              // the last path added (building only)
	unsorted map[string]struct{} // every path, once one came out of order
	seed     maphash.Seed
	filter   []uint64 // a power of two of words; nil: none (no paths)
}

// init readies l for the paths of an index of size bytes: an entry
// takes at least 62 of them, so the filter has at least 16 bits for
// each path, and the list room for the usual 1 byte in 12.
func (l *fileList) init(size int64) {
	l.filter = make([]uint64, 1<<bits.Len64(uint64(max(size/62/4, 1)-1)))
	l.seed = maphash.MakeSeed()
	l.data = make([]byte, 0, size/12)
}

// add appends p, a path in index order.
func (l *fileList) add(p []byte) {
	if l.unsorted != nil {
		l.unsorted[string(p)] = struct{}{}
		return
	}
	shared := 0
	for shared < len(p) && shared < len(l.last) && p[shared] == l.last[shared] {
		shared++
	}
	if l.n > 0 && (shared == len(p) || shared < len(l.last) && p[shared] < l.last[shared]) {
		if shared == len(l.last) {
			return // another stage of the same path
		}
		// Before the last one: out of order.
		l.unsorted = l.all()
		l.unsorted[string(p)] = struct{}{}
		l.data, l.restarts, l.last, l.filter = nil, nil, nil, nil
		return
	}
	if l.filter == nil {
		l.init(0)
	}
	w, m := l.bloom(maphash.Bytes(l.seed, p))
	l.filter[w] |= m
	if l.n%restartEvery == 0 {
		l.restarts = append(l.restarts, uint32(len(l.data)))
		shared = 0
	}
	l.data = binary.AppendUvarint(l.data, uint64(shared))
	l.data = binary.AppendUvarint(l.data, uint64(len(p)-shared))
	l.data = append(l.data, p[shared:]...)
	l.last = append(l.last[:0], p...)
	l.n++
}

// done drops what only building needs. A list out of order keeps its
// map for lookups, and gets its paths sorted besides, for listings.
func (l *fileList) done() {
	if m := l.unsorted; m != nil {
		l.unsorted, l.n, l.last = nil, 0, nil
		l.init(int64(len(m)) * 62)
		for _, p := range slices.Sorted(maps.Keys(m)) {
			l.add([]byte(p))
		}
		l.unsorted = m
	}
	l.last = nil
	if l.n == 0 {
		l.data, l.filter = nil, nil
	} else if cap(l.data)-len(l.data) > len(l.data)/4 {
		l.data = append([]byte(nil), l.data...)
	}
}

// bloom returns the filter word of a path whose hash is h, and the bits
// the path sets in it.
func (l *fileList) bloom(h uint64) (int, uint64) {
	return int(h & uint64(len(l.filter)-1)), 1<<(h>>40&63) | 1<<(h>>46&63) | 1<<(h>>52&63)
}

// all returns every path of the list in a map.
func (l *fileList) all() map[string]struct{} {
	m := make(map[string]struct{}, l.n)
	var key []byte
	for off := 0; off < len(l.data); {
		key, off = l.next(key, off)
		m[string(key)] = struct{}{}
	}
	return m
}

// next decodes the path at off, key being the path before it, and
// returns it and the offset after it.
func (l *fileList) next(key []byte, off int) ([]byte, int) {
	shared, k := binary.Uvarint(l.data[off:])
	off += k
	n, k := binary.Uvarint(l.data[off:])
	off += k
	key = append(key[:shared], l.data[off:off+int(n)]...)
	return key, off + int(n)
}

// whole returns the path at off, one that shares nothing with the one
// before it, without copying it.
func (l *fileList) whole(off int) []byte {
	_, k := binary.Uvarint(l.data[off:])
	off += k
	n, k := binary.Uvarint(l.data[off:])
	off += k
	return l.data[off : off+int(n)]
}

// has reports whether the list holds rel.
func (l *fileList) has(rel string) bool {
	if l.unsorted != nil {
		_, ok := l.unsorted[rel]
		return ok
	}
	if l.n == 0 {
		return false
	}
	if w, m := l.bloom(maphash.String(l.seed, rel)); l.filter[w]&m != m {
		return false
	}
	// The first restart whose path is after rel; rel can only be in
	// the block before it. A restart's path is stored whole.
	i := sort.Search(len(l.restarts), func(i int) bool {
		return string(l.whole(int(l.restarts[i]))) > rel
	})
	if i == 0 {
		return false
	}
	off, end := int(l.restarts[i-1]), len(l.data)
	if i < len(l.restarts) {
		end = int(l.restarts[i])
	}
	var buf [256]byte
	key := buf[:0]
	for off < end {
		key, off = l.next(key, off)
		if string(key) >= rel {
			return string(key) == rel
		}
	}
	return false
}

// restartBefore returns the offset of the last restart whose path is
// not after key, 0 if none: decoding from there passes key's place.
func (l *fileList) restartBefore(key []byte) int {
	i := sort.Search(len(l.restarts), func(i int) bool {
		return string(l.whole(int(l.restarts[i]))) > string(key)
	})
	if i == 0 {
		return 0
	}
	return int(l.restarts[i-1])
}

// appendChildren appends to buf each path directly in directory dir
// ("" the top) by its name and a NUL, and once each subdirectory
// holding paths by its name and a "/", in path order. A
// subdirectory's paths are passed by a jump to the restart before the
// first path after them.
func (l *fileList) appendChildren(buf []byte, dir string) []byte {
	if l.n == 0 {
		return buf
	}
	var kb, fb [256]byte
	key, from := kb[:0], append(fb[:0], dir...)
	if dir != "" {
		from = append(from, '/')
	}
	plen := len(from)
	off := l.restartBefore(from)
	for off < len(l.data) {
		key, off = l.next(key, off)
		if string(key) < string(from) {
			continue
		}
		if len(key) < plen || string(key[:plen]) != string(from[:plen]) {
			break // past dir's paths
		}
		rest := key[plen:]
		i := bytes.IndexByte(rest, '/')
		if i < 0 {
			buf = append(append(buf, rest...), 0)
			continue
		}
		buf = append(append(buf, rest[:i]...), '/')
		// Next: the first path after the subdirectory's ('/' + 1 is '0').
		from = append(append(from[:0], key[:plen+i]...), '0')
		if r := l.restartBefore(from); r > off {
			off, key = r, key[:0]
		}
	}
	return buf
}
