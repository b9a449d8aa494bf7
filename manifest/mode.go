package manifest

import "io/fs"

// Entry.Mode holds Unix permission bits in their Unix numbering (what
// chmod(2) takes and the encoding stores), not fs.FileMode's: Go keeps
// setuid, setgid and sticky in high bits of its own. ModeOf and FileMode
// convert between the two; nothing else should.
const (
	// ModePerm is rwx for user, group and other.
	ModePerm = 0o777
	// ModeSetuid, ModeSetgid and ModeSticky are the special bits.
	ModeSetuid = 0o4000
	ModeSetgid = 0o2000
	ModeSticky = 0o1000
	// ModeSpecial is setuid, setgid and sticky together.
	ModeSpecial = ModeSetuid | ModeSetgid | ModeSticky
)

// FileModeMask is the fs.FileMode bits that ModeOf keeps and FileMode
// sets: the permissions plus Go's setuid, setgid and sticky bits. It is
// what a chmod of an entry's recorded mode may change.
const FileModeMask = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// ModeOf returns the Entry.Mode bits of Go's file mode m: its
// permissions and special bits; the type bits and everything else are
// dropped.
func ModeOf(m fs.FileMode) uint32 {
	b := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		b |= ModeSetuid
	}
	if m&fs.ModeSetgid != 0 {
		b |= ModeSetgid
	}
	if m&fs.ModeSticky != 0 {
		b |= ModeSticky
	}
	return b
}

// FileMode returns Go's file mode for the Entry.Mode bits m (bits
// outside ModeMask are dropped), as os.Chmod wants it: os.Chmod reads
// setuid, setgid and sticky from fs.ModeSetuid & co, not from 0o4000.
// FileMode(ModeOf(x)) == x&FileModeMask for every x.
func FileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & ModePerm)
	if m&ModeSetuid != 0 {
		mode |= fs.ModeSetuid
	}
	if m&ModeSetgid != 0 {
		mode |= fs.ModeSetgid
	}
	if m&ModeSticky != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
