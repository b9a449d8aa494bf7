// The stat cache record's encoding.

package walker

import (
	"encoding/binary"
	"errors"
	"unsafe"

	"github.com/turnback/turnback/cas"
)

// deltaVersions is added to a record's version when its entries' times,
// inode and mode are written as differences from the entry before: the
// files of a directory were mostly made together, with inodes in a row
// and one mode. On the Go tree this makes the entries 18% smaller.
const deltaVersions = 3

func encodeRecord(r *dirRecord) []byte {
	var b []byte
	switch {
	case r.tree.IsZero():
		b = append(b, cacheVersion+deltaVersions)
	case r.listed:
		b = append(b, cacheVersionListing+deltaVersions)
	default:
		b = append(b, cacheVersionTree+deltaVersions)
	}
	b = binary.AppendUvarint(b, uint64(len(r.entries)))
	var prev fileStat
	for _, e := range r.entries {
		b = binary.AppendUvarint(b, uint64(len(e.name)))
		b = append(b, e.name...)
		b = binary.AppendVarint(b, e.st.size)
		b = binary.AppendVarint(b, e.st.mtime-prev.mtime)
		b = binary.AppendVarint(b, e.st.ctime-prev.ctime)
		b = binary.AppendVarint(b, int64(e.st.ino-prev.ino))
		b = binary.AppendUvarint(b, uint64(e.st.mode^prev.mode))
		prev = e.st
		b = append(b, e.hash[:]...)
		var flags byte
		if e.stored {
			flags = 1
		}
		b = append(b, flags)
	}
	if r.tree.IsZero() {
		return b
	}
	b = append(b, r.tree[:]...)
	b = binary.AppendUvarint(b, uint64(len(r.subs)))
	for _, e := range r.subs {
		b = binary.AppendUvarint(b, uint64(len(e.name)))
		b = append(b, e.name...)
		b = append(b, e.hash[:]...)
		var flags byte
		if e.uncaptured {
			flags = 1
		}
		b = append(b, flags)
		b = binary.AppendVarint(b, e.files)
	}
	if r.listed {
		b = appendListing(b, r)
	}
	return b
}

var errBadRecord = errors.New("walker: bad stat cache record")

// varint reads one varint from *b with read (binary.Uvarint or
// binary.Varint) and advances *b past it; on a bad one *b becomes nil
// and the result 0.
func varint[T uint64 | int64](b *[]byte, read func([]byte) (T, int)) T {
	v, n := read(*b)
	if n <= 0 {
		*b = nil
		return 0
	}
	*b = (*b)[n:]
	return v
}

func decodeRecord(b []byte) (*dirRecord, error) { return decodeRecordInto(string(b), nil) }

// decodeRecordInto is decodeRecord of the record all, with the entries
// decoded into buf's array when it is large enough. The record's names
// are substrings of all, not one string each.
func decodeRecordInto(all string, buf []cacheEntry) (*dirRecord, error) {
	r := &dirRecord{entries: buf}
	if err := decodeRecordReuse(all, r, nil); err != nil {
		return nil, err
	}
	return r, nil
}

// decodeRecordReuse decodes the record all into r, reusing the arrays
// of r's slices where they are large enough, else taking them from l
// (if not nil), which gets r's back: a capture decodes one record per
// directory into its scratch. On an error r is left partly filled.
func decodeRecordReuse(all string, r *dirRecord, l *arrays) error {
	var recs *freeList[cacheEntry]
	var subs *freeList[subEntry]
	var strs *freeList[string]
	if l != nil {
		recs, subs, strs = &l.recs, &l.subs, &l.strings
	}
	*r = dirRecord{entries: r.entries[:0], subs: r.subs[:0], extra: r.extra[:0]}
	// Read through a byte view of all, never written.
	b := unsafe.Slice(unsafe.StringData(all), len(all))
	if len(b) == 0 || b[0] < cacheVersion || b[0] > cacheVersionListing+deltaVersions {
		return errBadRecord
	}
	version, delta := b[0], b[0] > cacheVersionListing
	if delta {
		version -= deltaVersions
	}
	withTree, withListing := version >= cacheVersionTree, version == cacheVersionListing
	total := len(b)
	name := func(n uint64) string { at := total - len(b); return all[at : at+int(n)] }
	b = b[1:]
	uv := func() uint64 { return varint(&b, binary.Uvarint) }
	sv := func() int64 { return varint(&b, binary.Varint) }
	count := uv()
	if b == nil || count > uint64(len(b)) {
		return errBadRecord
	}
	r.entries = emptied(recs, r.entries, int(count))
	var prev fileStat // the entry before, in a delta record; else zero
	for i := uint64(0); i < count; i++ {
		nl := uv()
		if nl > uint64(len(b)) {
			return errBadRecord
		}
		e := cacheEntry{name: name(nl)}
		b = b[nl:]
		e.st.size = sv()
		e.st.mtime = prev.mtime + sv()
		e.st.ctime = prev.ctime + sv()
		if delta {
			e.st.ino = prev.ino + uint64(sv())
			e.st.mode = prev.mode ^ uint32(uv())
			prev = e.st
		} else {
			e.st.ino = uv()
			e.st.mode = uint32(uv())
		}
		if len(b) < cas.HashSize {
			return errBadRecord
		}
		copy(e.hash[:], b)
		b = b[cas.HashSize:]
		if len(b) < 1 || b[0] > 1 {
			return errBadRecord
		}
		e.stored = b[0] == 1
		b = b[1:]
		r.entries = append(r.entries, e)
	}
	if withTree {
		if len(b) < cas.HashSize {
			return errBadRecord
		}
		copy(r.tree[:], b)
		b = b[cas.HashSize:]
		if r.tree.IsZero() {
			return errBadRecord
		}
		count := uv()
		if b == nil || count > uint64(len(b)) {
			return errBadRecord
		}
		r.subs = emptied(subs, r.subs, int(count))
		for i := uint64(0); i < count; i++ {
			nl := uv()
			if nl > uint64(len(b)) {
				return errBadRecord
			}
			e := subEntry{name: name(nl)}
			b = b[nl:]
			if len(b) < cas.HashSize+1 || b[cas.HashSize] > 1 {
				return errBadRecord
			}
			copy(e.hash[:], b)
			e.uncaptured = b[cas.HashSize] == 1
			b = b[cas.HashSize+1:]
			e.files = sv()
			if b == nil || i > 0 && r.subs[i-1].name >= e.name {
				return errBadRecord
			}
			r.subs = append(r.subs, e)
		}
	}
	if withListing && !decodeListing(&b, r, strs, name) {
		return errBadRecord
	}
	if len(b) != 0 {
		return errBadRecord
	}
	return nil
}
