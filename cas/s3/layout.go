package s3

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/sessname"
)

// ErrCorrupt wraps every decoding failure of a remote object (an index,
// a head, a pending list, a record); it also wraps cas.ErrCorrupt, so
// callers that branch on damaged data see one sentinel.
var ErrCorrupt = fmt.Errorf("s3: corrupt remote object: %w", cas.ErrCorrupt)

// Kind says what a record in a pack is.
type Kind byte

// Kinds of record. A tree and a blob are both stored records of package
// cas (a codec byte, then the payload); a chunk list is a chunk-list
// record of package cas.
const (
	KindTree      Kind = 1
	KindBlob      Kind = 2
	KindChunkList Kind = 3
)

func (k Kind) String() string {
	switch k {
	case KindTree:
		return "tree"
	case KindBlob:
		return "blob"
	case KindChunkList:
		return "chunk list"
	}
	return "kind " + strconv.Itoa(int(k))
}

// Object names under the prefix.
const (
	dirPacks   = "packs/"
	dirHeads   = "heads/"
	dirPending = "gc/"
	extPack    = ".pack"
	extIndex   = ".idx"
)

// PackHeader starts every pack object.
const PackHeader = "turnback remote pack 1\n"

// PackKey is the object name of pack id (hex of the BLAKE3 of its bytes).
func PackKey(prefix string, id cas.Hash) string { return prefix + dirPacks + id.String() + extPack }

// IndexKey is the object name of the index of pack id.
func IndexKey(prefix string, id cas.Hash) string { return prefix + dirPacks + id.String() + extIndex }

// HeadsDir is the folder of a session's heads. The session's name is
// path-escaped, then every ASCII capital letter is written '!' and its
// small letter (as the Go module proxy spells module paths), so two
// names get two folders also on a store that folds case: the folder
// holds no capital letter outside the %XX escapes, and PathEscape
// always escapes '!'. A name sessname.Check refuses has no folder
// (callers check first; HeadsDir then returns "", which names none).
func HeadsDir(prefix, session string) string {
	if sessname.Check(session) != nil {
		return ""
	}
	return prefix + dirHeads + headSegment(session) + "/"
}

// HeadsDirs returns the folders a session's heads may be in: HeadsDir,
// and for a name with a capital letter the folder of the spelling
// before HeadsDir's (the name only path-escaped), still read.
func HeadsDirs(prefix, session string) []string {
	dir := HeadsDir(prefix, session)
	if dir == "" {
		return nil
	}
	if old := prefix + dirHeads + url.PathEscape(session) + "/"; old != dir {
		return []string{dir, old}
	}
	return []string{dir}
}

func headSegment(session string) string {
	esc := url.PathEscape(session)
	var b strings.Builder
	for i := 0; i < len(esc); i++ {
		switch c := esc[i]; {
		case c == '%': // an escape's hex digits stay as PathEscape made them
			b.WriteString(esc[i : i+3])
			i += 2
		case c >= 'A' && c <= 'Z':
			b.WriteByte('!')
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// parseHeadSegment returns the session a head folder's name spells:
// HeadsDir's spelling, or the older one (the name path-escaped only,
// told apart by its capital letters). Anything else, or a name
// sessname.Check refuses, is not a session's folder.
func parseHeadSegment(seg string) (string, bool) {
	esc := seg
	if strings.Contains(seg, "!") {
		var b strings.Builder
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if c == '!' {
				if i+1 == len(seg) || seg[i+1] < 'a' || seg[i+1] > 'z' {
					return "", false
				}
				i++
				c = seg[i] - 'a' + 'A'
			}
			b.WriteByte(c)
		}
		esc = b.String()
	}
	s, err := url.PathUnescape(esc)
	if err != nil || sessname.Check(s) != nil {
		return "", false
	}
	if headSegment(s) != seg && url.PathEscape(s) != seg {
		return "", false // only the spellings HeadsDir and HeadsDirs make
	}
	return s, true
}

// HeadKey is the object name of a head of session written at nanos
// (Unix time) with body hash sum; "" for a name sessname.Check refuses.
func HeadKey(prefix, session string, nanos int64, sum cas.Hash) string {
	dir := HeadsDir(prefix, session)
	if dir == "" {
		return ""
	}
	return fmt.Sprintf("%s%020d-%s.json", dir, nanos, sum.String()[:32])
}

// ParseHeadKey returns the session, time and body hash prefix of a head
// object name (relative to the prefix), in either spelling HeadsDirs
// reads.
func ParseHeadKey(rel string) (session string, nanos int64, sum string, ok bool) {
	rest, found := strings.CutPrefix(rel, dirHeads)
	if !found {
		return "", 0, "", false
	}
	esc, file, found := strings.Cut(rest, "/")
	if !found || strings.Contains(file, "/") {
		return "", 0, "", false
	}
	s, ok := parseHeadSegment(esc)
	if !ok {
		return "", 0, "", false
	}
	base, found := strings.CutSuffix(file, ".json")
	ts, sum, found2 := strings.Cut(base, "-")
	if !found || !found2 || len(ts) != 20 || len(sum) != 32 || strings.Trim(sum, "0123456789abcdef") != "" ||
		strings.Trim(ts, "0123456789") != "" {
		return "", 0, "", false
	}
	n, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || n < 0 {
		return "", 0, "", false
	}
	return s, n, sum, true
}

// ParsePackKey returns the pack id and whether rel (relative to the
// prefix) names its pack (.pack) or its index (.idx).
func ParsePackKey(rel string) (id cas.Hash, isIndex, ok bool) {
	rest, found := strings.CutPrefix(rel, dirPacks)
	if !found {
		return cas.Hash{}, false, false
	}
	var name string
	switch {
	case strings.HasSuffix(rest, extPack):
		name = strings.TrimSuffix(rest, extPack)
	case strings.HasSuffix(rest, extIndex):
		name, isIndex = strings.TrimSuffix(rest, extIndex), true
	default:
		return cas.Hash{}, false, false
	}
	h, err := cas.ParseHash(name)
	if err != nil || h.String() != name {
		return cas.Hash{}, false, false
	}
	return h, isIndex, true
}

// PendingKey is the object name of a gc pending list written at nanos.
func PendingKey(prefix string, nanos int64) string {
	return fmt.Sprintf("%s%s%020d.json", prefix, dirPending, nanos)
}

// Entry is one record of a pack: what it is, its address and where its
// bytes sit in the pack.
type Entry struct {
	Kind   Kind
	Hash   cas.Hash
	Offset int64
	Length int64
}

// Index limits: a pack holds at most MaxEntries records, none larger
// than MaxRecord, and is at most MaxPack bytes.
const (
	MaxEntries = 1 << 22
	MaxRecord  = 8 << 20
	MaxPack    = 1 << 30
)

const indexMagic = "TBRI\x01"

// EncodeIndex encodes the index of a pack of size packSize: the magic,
// the pack's size and entry count, the entries in offset order (kind,
// hash, offset, length; integers as uvarints), then the BLAKE3 of all
// that, so a damaged index is detected without its pack.
func EncodeIndex(packSize int64, entries []Entry) []byte {
	es := append([]Entry(nil), entries...)
	sort.Slice(es, func(i, j int) bool { return es[i].Offset < es[j].Offset })
	b := []byte(indexMagic)
	b = binary.AppendUvarint(b, uint64(packSize))
	b = binary.AppendUvarint(b, uint64(len(es)))
	for _, e := range es {
		b = append(b, byte(e.Kind))
		b = append(b, e.Hash[:]...)
		b = binary.AppendUvarint(b, uint64(e.Offset))
		b = binary.AppendUvarint(b, uint64(e.Length))
	}
	sum := cas.Sum(b)
	return append(b, sum[:]...)
}

// DecodeIndex decodes and checks an index: its checksum, known kinds,
// entries in offset order that do not overlap, sit after the pack
// header and inside the pack. It returns the pack's size and entries.
func DecodeIndex(b []byte) (int64, []Entry, error) {
	bad := func(why string) (int64, []Entry, error) {
		return 0, nil, fmt.Errorf("%w: index: %s", ErrCorrupt, why)
	}
	if len(b) < len(indexMagic)+cas.HashSize || !bytes.HasPrefix(b, []byte(indexMagic)) {
		return bad("bad magic")
	}
	body, sum := b[:len(b)-cas.HashSize], b[len(b)-cas.HashSize:]
	if s := cas.Sum(body); !bytes.Equal(s[:], sum) {
		return bad("checksum mismatch")
	}
	r := body[len(indexMagic):]
	uv := func() (uint64, bool) {
		v, n := binary.Uvarint(r)
		if n <= 0 {
			return 0, false
		}
		r = r[n:]
		return v, true
	}
	size, ok := uv()
	if !ok || size > MaxPack || size < uint64(len(PackHeader)) {
		return bad("bad pack size")
	}
	count, ok := uv()
	if !ok || count > MaxEntries || count > uint64(len(r))/(1+cas.HashSize+2) {
		return bad("bad entry count")
	}
	entries := make([]Entry, 0, count)
	next := int64(len(PackHeader))
	for i := uint64(0); i < count; i++ {
		if len(r) < 1+cas.HashSize {
			return bad("truncated")
		}
		e := Entry{Kind: Kind(r[0])}
		copy(e.Hash[:], r[1:1+cas.HashSize])
		r = r[1+cas.HashSize:]
		if e.Kind < KindTree || e.Kind > KindChunkList {
			return bad("unknown kind " + strconv.Itoa(int(e.Kind)))
		}
		off, ok1 := uv()
		n, ok2 := uv()
		if !ok1 || !ok2 || n == 0 || n > MaxRecord || off > MaxPack {
			return bad("bad offset or length")
		}
		e.Offset, e.Length = int64(off), int64(n)
		if e.Offset < next || e.Offset+e.Length > int64(size) {
			return bad("entries overlap or lie outside the pack")
		}
		next = e.Offset + e.Length
		entries = append(entries, e)
	}
	if len(r) != 0 {
		return bad("trailing bytes")
	}
	return int64(size), entries, nil
}

// Record is one store record a head carries: a key of the store's
// metadata (session, turn, snapshot or checkpoint record) and its JSON
// value.
type Record struct {
	Key   string          `json:"k"`
	Value json.RawMessage `json:"v"`
}

// Head is what a push of one session writes last: the session's records
// and every pack holding an object they reach. A head is immutable; a
// session's newest head (by the time in its name) is the session.
type Head struct {
	Version int    `json:"v"`
	Session string `json:"session"`
	// Store: the pushing store's work tree, written by versions before
	// it was kept private (everyone with access to the bucket reads
	// heads); read, never written now.
	Store   string   `json:"store,omitempty"`
	Packs   []string `json:"packs"`
	Records []Record `json:"records"`
}

// Record key prefixes a head may carry (those of package turnback).
var recordPrefixes = []string{"m/sess/", "m/turn/", "m/snap/", "m/cp/"}

// MaxHead bounds the size of a head object.
const MaxHead = 256 << 20

// EncodeHead encodes h canonically (packs sorted, records sorted by
// key), so the same content always gives the same bytes and name.
func EncodeHead(h *Head) []byte {
	c := *h
	c.Version = 1
	c.Packs = append([]string(nil), h.Packs...)
	sort.Strings(c.Packs)
	c.Records = append([]Record(nil), h.Records...)
	sort.Slice(c.Records, func(i, j int) bool { return c.Records[i].Key < c.Records[j].Key })
	data, err := json.Marshal(&c)
	if err != nil {
		return nil // RawMessage values are checked by the caller; cannot fail otherwise
	}
	return data
}

// DecodeHead decodes and checks a head: version 1, a session name, pack
// ids in hex, record keys under the known prefixes and of this session
// where the key names one, values that are JSON objects.
func DecodeHead(b []byte) (*Head, error) {
	if len(b) > MaxHead {
		return nil, fmt.Errorf("%w: head: %d bytes", ErrCorrupt, len(b))
	}
	var h Head
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, fmt.Errorf("%w: head: %v", ErrCorrupt, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: head: trailing data", ErrCorrupt)
	}
	if h.Version != 1 {
		return nil, fmt.Errorf("%w: head: version %d", ErrCorrupt, h.Version)
	}
	if err := sessname.Check(h.Session); err != nil {
		return nil, fmt.Errorf("%w: head: %v", ErrCorrupt, err)
	}
	for _, p := range h.Packs {
		if id, err := cas.ParseHash(p); err != nil || id.String() != p {
			return nil, fmt.Errorf("%w: head: bad pack id %q", ErrCorrupt, p)
		}
	}
	for _, r := range h.Records {
		if err := checkRecordKey(h.Session, r.Key); err != nil {
			return nil, err
		}
		if len(r.Value) == 0 || r.Value[0] != '{' || !json.Valid(r.Value) {
			return nil, fmt.Errorf("%w: head: record %q is not a JSON object", ErrCorrupt, r.Key)
		}
	}
	return &h, nil
}

func checkRecordKey(session, key string) error {
	for _, p := range recordPrefixes {
		rest, ok := strings.CutPrefix(key, p)
		if !ok {
			continue
		}
		switch p {
		case "m/sess/":
			ok = rest == session
		case "m/turn/":
			var n string
			n, ok = strings.CutPrefix(rest, session+"/")
			ok = ok && len(n) == 12 && strings.Trim(n, "0123456789") == ""
		default:
			id, err := cas.ParseHash(rest)
			ok = err == nil && id.String() == rest
		}
		if ok {
			return nil
		}
	}
	return fmt.Errorf("%w: head: record key %q", ErrCorrupt, key)
}

// Pending is a gc pending list: packs that no head named when it was
// written. A later gc deletes those still unnamed once the grace period
// has passed since; pushes meanwhile do not reuse them.
type Pending struct {
	Version int      `json:"v"`
	Packs   []string `json:"packs"`
}

// DecodePending decodes and checks a pending list.
func DecodePending(b []byte) (*Pending, error) {
	var p Pending
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%w: gc list: %v", ErrCorrupt, err)
	}
	if p.Version != 1 {
		return nil, fmt.Errorf("%w: gc list: version %d", ErrCorrupt, p.Version)
	}
	for _, id := range p.Packs {
		if h, err := cas.ParseHash(id); err != nil || h.String() != id {
			return nil, fmt.Errorf("%w: gc list: bad pack id %q", ErrCorrupt, id)
		}
	}
	return &p, nil
}
