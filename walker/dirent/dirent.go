package dirent

import (
	"bytes"
	"encoding/binary"
)

// nameOff is where the name starts in a record: d_ino 8, d_off 8,
// d_reclen 2, d_type 1.
const nameOff = 19

// Each calls fn with the type (a DT_* value) and name of every record in
// buf, in order, but those Each passes over (see the package doc). name
// is a slice of buf.
func Each(buf []byte, fn func(typ uint8, name []byte)) {
	for off := 0; off+nameOff <= len(buf); {
		reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
		if reclen <= nameOff || off+reclen > len(buf) {
			return
		}
		ino := binary.NativeEndian.Uint64(buf[off:])
		name := buf[off+nameOff : off+reclen]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if len(name) == 0 {
			return
		}
		if ino != 0 && string(name) != "." && string(name) != ".." {
			fn(buf[off+nameOff-1], name)
		}
		off += reclen
	}
}

// Names appends the names of the records in buf to names, as strings
// that share one copy of buf: one allocation per buffer, not one per
// name.
func Names(buf []byte, names []string) []string {
	s := string(buf)
	Each(buf, func(_ uint8, name []byte) {
		at := cap(buf) - cap(name) // name's offset in buf
		names = append(names, s[at:at+len(name)])
	})
	return names
}
