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
// filesystem could normalise (a non-ASCII one). One name is probed
// with its case swapped: an entry found (else one of others, names the
// directory held) that has ASCII letters. No name to probe, or any
// doubt: false.
func (d *dirh) exactNames(ents []dirEnt, others []string) bool {
	probe, id := "", inodeID{}
	for _, de := range ents {
		if de.err != nil || !isASCII(de.name) {
			return false
		}
		if si, ok := de.fi.(*statInfo); ok && probe == "" && swapCase(de.name) != de.name {
			probe, id = de.name, inodeID{si.st.Dev, si.st.Ino}
		}
	}
	var st unix.Stat_t
	var cname []byte
	for _, n := range others {
		if probe != "" {
			break
		}
		if isASCII(n) && swapCase(n) != n && fstatatBuf(d.fd, n, &st, &cname, d.raw) == nil {
			probe, id = n, inodeID{st.Dev, st.Ino}
		}
	}
	if probe == "" {
		return false
	}
	switch err := fstatatBuf(d.fd, swapCase(probe), &st, &cname, d.raw); err {
	case unix.ENOENT:
		return true
	case nil:
		return (inodeID{st.Dev, st.Ino}) != id // two files: case counts
	}
	return false
}
