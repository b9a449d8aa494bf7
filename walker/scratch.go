package walker

import (
	"sync"
	"unsafe"

	"github.com/turnback/turnback/manifest"
)

// dirScratch holds the per-entry slices of one directory's capture
// (its listing, the entries it builds, their stat cache data). Their
// arrays come from the capture's arrays and go back there once the
// directory is done. Nothing a capture keeps once a directory is done
// may point into them (names are strings, which the slices only refer
// to). The scratch itself, with its small buffers, is reused through
// scratchPool.
type dirScratch struct {
	lists *arrays // where the arrays below come from
	names []string
	infos []statInfo // the listing's lstat results (Linux)
	ents  []dirEnt
	out   []manifest.Entry
	keep  []bool
	fresh []*cacheEntry
	rec   []cacheEntry // the directory's new stat cache record
	extra []string     // the new record's extra listed names
	enc   []byte       // the directory's tree, encoded
	cname []byte       // a name with its NUL, for fstatat
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
	// tasks are the subdirectories' tasks; wg waits for every task,
	// firstErr is the first error of one, under errMu (see fail).
	tasks    []subTask
	wg       sync.WaitGroup
	errMu    sync.Mutex
	firstErr error
}

// listBuf returns an empty slice to list the directory's names into:
// the scratch's names array, or one of its lists'. A listing appended
// to a nil slice would put a new array into the lists per directory.
func (s *dirScratch) listBuf() []string {
	if s.names == nil && s.lists != nil {
		s.names = s.lists.strings.get(listGuess)
	}
	return s.names[:0]
}

// listGuess: the capacity a listing starts from.
const listGuess = 64

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

// maxPooled: a scratch whose small buffers grew past this many bytes is
// not kept.
const maxPooled = 1 << 20

// getScratch returns a scratch whose arrays come from lists.
func getScratch(lists *arrays) *dirScratch {
	s := scratchPool.Get().(*dirScratch)
	s.lists = lists
	return s
}

// release gives the scratch's arrays back to its lists and keeps the
// scratch for another directory. newRec.entries must be nil by then:
// it is a prefix of oldRec's entries or rec.
func (s *dirScratch) release() {
	l := s.lists
	l.strings.put(s.names)
	l.infos.put(s.infos)
	l.ents.put(s.ents)
	l.out.put(s.out)
	l.keep.put(s.keep)
	l.fresh.put(s.fresh)
	l.recs.put(s.rec)
	l.strings.put(s.extra) // newRec.extra's
	l.bytes.put(s.enc)
	l.recs.put(s.oldRec.entries)
	l.subs.put(s.oldRec.subs)
	l.strings.put(s.oldRec.extra)
	l.subs.put(s.newRec.subs)
	l.tasks.put(s.tasks)
	*s = dirScratch{cname: s.cname[:0], path: s.path[:0], tracked: s.tracked[:0], named: s.named[:0]}
	if cap(s.cname)+cap(s.path)+cap(s.tracked) > maxPooled || cap(s.named) > maxPooled/16 {
		return
	}
	scratchPool.Put(s)
}
