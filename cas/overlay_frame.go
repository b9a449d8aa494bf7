package cas

// The overlay log's frames: their encoding, and the parse that finds
// the valid prefix of a log, its torn end and damaged frames.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// overlayOp is one record of a frame: a write, or a delete (del). pack
// marks a write made through a batch (a blob, a tree): folded into a pack
// file when large, where a record's value stays in the LSM tree.
type overlayOp struct {
	key, value     []byte
	del, pack, ptr bool // ptr: value is a pointer into a pack file
}

// Kind bytes of a frame's records.
const (
	opWrite  = 0
	opDelete = 1
	opPack   = 2
	opPtr    = 3
)

// encodeFrame returns the frame of ops, header included.
func encodeFrame(ops []overlayOp) []byte {
	n := frameHeader + binary.MaxVarintLen64
	for _, op := range ops {
		n += 1 + 2*binary.MaxVarintLen64 + len(op.key) + len(op.value)
	}
	b := make([]byte, frameHeader, n)
	b = binary.AppendUvarint(b, uint64(len(ops)))
	for _, op := range ops {
		switch {
		case op.del:
			b = append(b, opDelete)
		case op.ptr:
			b = append(b, opPtr)
		case op.pack:
			b = append(b, opPack)
		default:
			b = append(b, opWrite)
		}
		b = binary.AppendUvarint(b, uint64(len(op.key)))
		b = append(b, op.key...)
		if !op.del {
			b = binary.AppendUvarint(b, uint64(len(op.value)))
			b = append(b, op.value...)
		}
	}
	n = len(b) - frameHeader
	binary.LittleEndian.PutUint32(b[0:4], uint32(n))
	binary.LittleEndian.PutUint32(b[4:8], ^uint32(n))
	binary.LittleEndian.PutUint32(b[8:12], crc32.Checksum(b[frameHeader:], crcTable))
	return b
}

// decodeBody returns the records of a frame's body (its checksum
// already checked). Keys and values alias body.
func decodeBody(body []byte) ([]overlayOp, error) {
	count, k := binary.Uvarint(body)
	if k <= 0 || count > uint64(len(body)) {
		return nil, fmt.Errorf("%w: bad record count", errOverlay)
	}
	body = body[k:]
	ops := make([]overlayOp, 0, count)
	take := func() ([]byte, error) {
		n, k := binary.Uvarint(body)
		if k <= 0 || n > uint64(len(body)-k) {
			return nil, fmt.Errorf("%w: bad length", errOverlay)
		}
		v := body[k : k+int(n)]
		body = body[k+int(n):]
		return v, nil
	}
	for range count {
		if len(body) == 0 || body[0] > opPtr {
			return nil, fmt.Errorf("%w: bad record kind", errOverlay)
		}
		op := overlayOp{del: body[0] == opDelete, pack: body[0] == opPack || body[0] == opPtr, ptr: body[0] == opPtr}
		body = body[1:]
		var err error
		if op.key, err = take(); err != nil {
			return nil, err
		}
		if !op.del {
			if op.value, err = take(); err != nil {
				return nil, err
			}
		}
		ops = append(ops, op)
	}
	if len(body) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the records", errOverlay, len(body))
	}
	return ops, nil
}

// parseOverlay calls fn with the records of every frame of data (a
// log's content) that checks out, in order, and returns the log's id
// (nil for a log whose creation a crash cut short) and the offset where
// its torn end starts (the whole length when there is none).
//
// The torn end of an append a crash interrupted is not committed: a
// frame header cut short, a body cut short (the header being whole), a
// damaged header followed by zeroes only, or a last frame failing its
// checksum whose bytes are zeroes from a sector boundary to the end of
// the file (a file size a crash extended past its data, see tornTail).
//
// Anything else that does not check out is damage: a bad log header, a
// frame whose length is whole but whose checksum fails, a damaged
// frame header with data after it, a frame that does not decode. The
// frames after it are still read (a damaged header is skipped up to the
// next offset where a whole frame checks out), and the error is a
// *LogDamageError (wrapping ErrDamaged) naming every damaged range.
func parseOverlay(data []byte, fn func([]overlayOp)) (id []byte, valid int64, err error) {
	var dmg []LogRange
	if len(data) < overlayHeader {
		if bytes.HasPrefix(data, overlayMagic) || bytes.HasPrefix(overlayMagic, data) {
			return nil, 0, nil // a creation a crash cut short
		}
		return nil, 0, &LogDamageError{Damaged: []LogRange{{0, int64(len(data)), "bad header"}}}
	}
	if !bytes.Equal(data[:len(overlayMagic)], overlayMagic) {
		dmg = append(dmg, LogRange{0, int64(len(overlayMagic)), "bad header"})
	}
	id = data[len(overlayMagic):overlayHeader]
	off := int64(overlayHeader)
	frames := 0
	skip := func(why string, next int64) {
		if n := len(dmg); n > 0 && dmg[n-1].Offset+dmg[n-1].Length == off && dmg[n-1].Why == why {
			dmg[n-1].Length += next - off // one range for adjacent damage
		} else {
			dmg = append(dmg, LogRange{off, next - off, why})
		}
		off = next
	}
	for off < int64(len(data)) {
		rest := data[off:]
		if len(rest) < frameHeader {
			break // torn
		}
		n := binary.LittleEndian.Uint32(rest[0:4])
		if n != ^binary.LittleEndian.Uint32(rest[4:8]) || n > maxFrameLength {
			if isZeroes(rest) {
				break // torn
			}
			skip("frame header damaged", resync(data, off+1))
			continue
		}
		if int64(n) > int64(len(rest)-frameHeader) {
			break // torn
		}
		end := off + frameHeader + int64(n)
		body := rest[frameHeader : frameHeader+int64(n)]
		if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(rest[8:12]) {
			if end == int64(len(data)) && tornTail(data, off) {
				break
			}
			skip("frame fails its checksum", end)
			continue
		}
		ops, derr := decodeBody(body)
		if derr != nil {
			skip("frame does not decode ("+derr.Error()+")", end)
			continue
		}
		fn(ops)
		frames++
		off = end
	}
	if len(dmg) > 0 {
		return id, off, &LogDamageError{Damaged: dmg, Frames: frames}
	}
	return id, off, nil
}

// resync returns the first offset from on where a whole frame checks
// out (its length, complement and checksum agree and its body decodes),
// or the end of data: where reading goes on after a damaged frame
// header. A chance match needs both a 32-bit complement and a CRC-32C.
func resync(data []byte, from int64) int64 {
	for off := from; off+frameHeader <= int64(len(data)); off++ {
		rest := data[off:]
		n := binary.LittleEndian.Uint32(rest[0:4])
		if n != ^binary.LittleEndian.Uint32(rest[4:8]) || int64(n) > int64(len(rest)-frameHeader) {
			continue
		}
		body := rest[frameHeader : frameHeader+int64(n)]
		if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(rest[8:12]) {
			continue
		}
		if _, err := decodeBody(body); err == nil {
			return off
		}
	}
	return int64(len(data))
}

// tornTail reports whether the last frame of data, at off, whose
// checksum fails, is the torn end of an append: its bytes are zeroes
// from a sector boundary (512 bytes, the smallest unit a disk writes)
// inside its body to the end of the file, as a crash leaves a file
// whose size reached the disk before its data. A flipped byte leaves no
// such tail: it is damage.
func tornTail(data []byte, off int64) bool {
	z := int64(len(data))
	for z > off+frameHeader && data[z-1] == 0 {
		z--
	}
	z = (z + 511) &^ 511 // the first sector boundary in the zeroes
	return z < int64(len(data))
}

func isZeroes(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
