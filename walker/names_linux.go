//go:build linux && (amd64 || arm64)

package walker

import "golang.org/x/sys/unix"

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
		switch err := fstatatBuf(d.fd, swapped, &st, &cname, d.raw); err {
		case unix.ENOENT:
			return true
		case nil: // two files, or one file under both spellings
			return st.Dev != si.dev || st.Ino != si.ino
		}
		return false
	}
	return true
}
