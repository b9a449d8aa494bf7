// A directory's names, kept in its stat cache record and vouched for by
// the directory's own stat (see "Listing cache" in the package doc).

package walker

import (
	"encoding/binary"
	"strings"
)

// cacheVersionListing: a cacheVersionTree record followed by the
// directory's stat and the names of its listing that neither its entries
// nor its subdirectories name.
const cacheVersionListing = 4

// dirStat is the stat of a directory that vouches for its listing:
// creating, removing or renaming a name in a directory changes its
// mtime and ctime, and no one can set a ctime back.
type dirStat struct {
	fileStat
	dev uint64
}

// noNames is an empty listing that is not nil (nil: none known).
var noNames = []string{}

// testHookGetdents, if set (tests), hears of every directory listed
// with getdents rather than from its record (fd: its descriptor).
var testHookGetdents func(fd int)

// testHookLstat, if set (tests), hears of every name list lstats.
var testHookLstat func(name string)

// testHookLazyOpen, if set, hears each lazy handle opened (Linux), by
// its name in its parent.
var testHookLazyOpen func(name string)

// validName reports whether s can be one name of a listing: one path
// component, never "." or "..". A listing's names are opened and
// lstat'ed relative to their directory, so a record (which a damaged or
// hostile store supplies) naming anything else is refused.
func validName(s string) bool {
	return s != "" && s != "." && s != ".." && strings.IndexByte(s, '/') < 0 && strings.IndexByte(s, 0) < 0
}

// listingNames returns in buf's array, or one of l's, the names of the
// directory as r listed them, sorted, and reports whether r holds a
// listing that can be used: one whose names are all valid, and that its
// entries, subdirectories and extra names together name each exactly
// once. l gets buf's array if it is not returned: the caller keeps the
// result, used or not, in place of buf.
func (r *dirRecord) listingNames(l *freeList[string], buf []string) ([]string, bool) {
	if r == nil || !r.listed {
		return buf, false
	}
	out := emptied(l, buf, len(r.entries)+len(r.subs)+len(r.extra)) // their count when valid
	i, j, k := 0, 0, 0
	for i < len(r.entries) || j < len(r.subs) || k < len(r.extra) {
		// The smallest of the three heads comes next.
		var name string
		which := -1
		if i < len(r.entries) {
			name, which = r.entries[i].name, 0
		}
		if j < len(r.subs) && (which < 0 || r.subs[j].name < name) {
			name, which = r.subs[j].name, 1
		}
		if k < len(r.extra) && (which < 0 || r.extra[k] < name) {
			name, which = r.extra[k], 2
		}
		switch which {
		case 0:
			i++
		case 1:
			j++
		default:
			k++
		}
		if !validName(name) || len(out) > 0 && out[len(out)-1] >= name {
			return out[:0], false
		}
		out = append(out, name)
	}
	return out, true
}

// listingExtra returns in buf's array, or one of l's (which then gets
// buf's), the names of listing (sorted) that neither r's entries nor its
// subdirectories name (both sorted): what r must add to say which names
// the directory holds.
func listingExtra(l *freeList[string], listing []string, r *dirRecord, buf []string) []string {
	out := emptied(l, buf, max(0, len(listing)-len(r.entries)-len(r.subs)))
	i, j := 0, 0
	for _, name := range listing {
		for i < len(r.entries) && r.entries[i].name < name {
			i++
		}
		for j < len(r.subs) && r.subs[j].name < name {
			j++
		}
		if i < len(r.entries) && r.entries[i].name == name || j < len(r.subs) && r.subs[j].name == name {
			continue
		}
		out = append(out, name)
	}
	return out
}

// appendListing encodes r's listing after its subdirectories.
func appendListing(b []byte, r *dirRecord) []byte {
	s := r.lst
	b = binary.AppendVarint(b, s.size)
	b = binary.AppendVarint(b, s.mtime)
	b = binary.AppendVarint(b, s.ctime)
	b = binary.AppendUvarint(b, s.ino)
	b = binary.AppendUvarint(b, uint64(s.mode))
	b = binary.AppendUvarint(b, s.dev)
	b = binary.AppendUvarint(b, uint64(len(r.extra)))
	for _, name := range r.extra {
		b = binary.AppendUvarint(b, uint64(len(name)))
		b = append(b, name...)
	}
	return b
}

// decodeListing decodes what appendListing wrote from *b into r (name
// returns the next n bytes of the record as a string); false on a bad
// one. Names must be valid and sorted.
func decodeListing(b *[]byte, r *dirRecord, l *freeList[string], name func(n uint64) string) bool {
	uv := func() uint64 { return varint(b, binary.Uvarint) }
	sv := func() int64 { return varint(b, binary.Varint) }
	r.listed = true
	r.lst.size = sv()
	r.lst.mtime = sv()
	r.lst.ctime = sv()
	r.lst.ino = uv()
	r.lst.mode = uint32(uv())
	r.lst.dev = uv()
	count := uv()
	if *b == nil || count > uint64(len(*b)) {
		return false
	}
	r.extra = emptied(l, r.extra, int(count))
	for i := uint64(0); i < count; i++ {
		nl := uv()
		if *b == nil || nl > uint64(len(*b)) {
			return false
		}
		s := name(nl)
		*b = (*b)[nl:]
		if !validName(s) || i > 0 && r.extra[i-1] >= s {
			return false
		}
		r.extra = append(r.extra, s)
	}
	return true
}
