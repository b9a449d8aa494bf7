//go:build linux && (amd64 || arm64)

package walker

import (
	"sort"

	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker/dirent"
	"golang.org/x/sys/unix"
)

// readByName: directories may be read by name here (Options.Names):
// exactNames can tell whether a name lstat'ed is the name stored.
const readByName = true

// exactNames reports whether the entries ents, lstat'ed by name in d,
// carry the names a listing would give. Not when the directory folds
// case (a casefold directory, a case-insensitive filesystem: an lstat
// of "a" finds "A"), nor when an entry found has a name that a
// filesystem could normalise (a non-ASCII one). The first entry found
// with ASCII letters is probed with their case swapped; with none,
// no name found has another spelling. Any doubt: false.
func (d *dirh) exactNames(ents []dirEnt) bool {
	for _, de := range ents {
		if de.err != nil || !isASCII(de.name) {
			return false
		}
	}
	for _, de := range ents {
		swapped := swapCase(de.name)
		if swapped == de.name {
			continue
		}
		si, ok := de.fi.(*statInfo)
		if !ok {
			return false
		}
		var st unix.Stat_t
		var cname []byte
		fd, prefix := d.statBase()
		switch err := fstatatIn(fd, prefix, swapped, &st, &cname, d.raw); err {
		case unix.ENOENT:
			return true
		case nil: // two files, or one file under both spellings
			return st.Dev != si.dev || st.Ino != si.ino
		}
		return false
	}
	return true
}

// listNames lists the directory, lstat'ing none of its names: the
// names sorted, with their types (DT_*, DT_UNKNOWN where the
// filesystem does not say); false if it cannot be read so.
func (d *dirh) listNames(buf []string) ([]string, []uint8, bool) {
	fd, err := d.descriptor()
	if err != nil {
		return nil, nil, false
	}
	if testHookGetdents != nil {
		testHookGetdents(fd)
	}
	if d.listed {
		if _, err := unix.Seek(fd, 0, 0); err != nil {
			return nil, nil, false
		}
	}
	d.listed = true
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	var all []typedName
	for {
		n, err := retryEINTR(func() (int, error) { return unix.ReadDirent(fd, *bp) })
		if err != nil {
			return nil, nil, false
		}
		if n <= 0 {
			break
		}
		b := (*bp)[:n]
		s := string(b) // the names share one copy of the buffer
		dirent.Each(b, func(typ uint8, name []byte) {
			at := cap(b) - cap(name) // name's offset in b
			all = append(all, typedName{s[at : at+len(name)], typ})
		})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	names, types := buf[:0], make([]uint8, len(all))
	for i, tn := range all {
		names = append(names, tn.name)
		types[i] = tn.typ
	}
	return names, types, true
}

// typedName is a name listed and its type.
type typedName struct {
	name string
	typ  uint8
}

// kindIs reports whether a listed type typ is certainly kind k.
func kindIs(typ uint8, k manifest.Kind) bool {
	switch typ {
	case unix.DT_REG:
		return k == manifest.KindFile
	case unix.DT_DIR:
		return k == manifest.KindDir
	case unix.DT_LNK:
		return k == manifest.KindSymlink
	case unix.DT_FIFO:
		return k == manifest.KindFIFO
	}
	return false
}

// searchable reports whether names in the directory can be looked up:
// a directory readable but not searchable lists, but lstats nothing.
func (d *dirh) searchable() bool {
	fd, err := d.descriptor()
	if err != nil {
		return false
	}
	var st unix.Stat_t
	var cname []byte
	return fstatatBuf(fd, ".", &st, &cname, d.raw) != unix.EACCES
}

// dtDir is the listed type of a directory.
const dtDir = unix.DT_DIR
