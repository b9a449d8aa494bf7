package cas

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4/pb"
	"github.com/dgraph-io/badger/v4/table"
	"google.golang.org/protobuf/proto"
)

// ErrDamaged: the store's Badger metadata is missing or damaged while data
// files exist. Opening it would make Badger start over and delete the
// tables it no longer knows, so OpenBadger refuses before Badger runs.
var ErrDamaged = errors.New("cas: store damaged")

// manifestName is Badger's table list; badger's own constant.
const manifestName = "MANIFEST"

// manifestMagic starts every Badger MANIFEST: "Bdgr", a 2-byte external
// magic (0 for us) and Badger's 2-byte format version (8 in v4).
var manifestMagic = []byte{'B', 'd', 'g', 'r', 0, 0, 0, 8}

// manifestState is what checkManifest read from a MANIFEST.
type manifestState struct {
	live    map[uint64]bool // tables it lists
	level   map[uint64]int  // the level of each table it lists
	deleted map[uint64]bool // tables it created and deleted since
	maxID   uint64          // highest table id it mentions
	partial bool            // a record at the end is cut short
}

// precheck runs before every Badger open of dir (a writer that takes
// the directory lock itself runs it under the lock). Badger, given a
// directory whose MANIFEST is missing, creates an empty one; given one
// cut short, it keeps what it could read; in both cases it then deletes
// every table file the MANIFEST does not list: all of a store's history.
// precheck refuses (ErrDamaged, naming the file) whenever Badger would
// delete a table it cannot prove is garbage:
//
//   - data files (tables, memtables, value logs, packs) without a
//     MANIFEST;
//   - a MANIFEST that does not parse (bad magic, checksum, record);
//   - a table the MANIFEST lists but that is missing;
//   - a table file the MANIFEST does not list, unless the MANIFEST is
//     whole and the table is garbage by its own record: deleted there
//     (a crash between the MANIFEST update and the file's removal) or
//     newer than every table it mentions (a compaction's output that a
//     crash kept from being recorded).
//
// A directory that does not exist, or holds none of Badger's files, is
// fresh. precheck reads only.
func precheck(dir string) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cas: open store %s: %w", dir, err)
	}
	tables := map[uint64]bool{}
	var data []string
	hasManifest := false
	for _, e := range ents {
		name := e.Name()
		if name == manifestName {
			hasManifest = true
			continue
		}
		if id, ok := table.ParseFileID(name); ok {
			tables[id] = true
			data = append(data, name)
			continue
		}
		if strings.HasSuffix(name, ".vlog") || strings.HasSuffix(name, ".mem") || strings.HasSuffix(name, packExt) {
			data = append(data, name)
		}
	}
	mpath := filepath.Join(dir, manifestName)
	if !hasManifest {
		if len(data) == 0 {
			return nil
		}
		return fmt.Errorf("%w: %s is missing while %d data files (%s) exist; turnback will not start the database over them (nothing was changed; see 'turnback verify --repair')",
			ErrDamaged, mpath, len(data), sample(data))
	}
	m, err := readManifest(mpath)
	if err != nil {
		return fmt.Errorf("%w: %s: %v; turnback will not start the database over its data files (nothing was changed; see 'turnback verify --repair')", ErrDamaged, mpath, err)
	}
	var missing, unknown []string
	for id := range m.live {
		if !tables[id] {
			missing = append(missing, table.IDToFilename(id))
		}
	}
	for id := range tables {
		if m.live[id] {
			continue
		}
		if !m.partial && (m.deleted[id] || id > m.maxID) {
			continue // garbage Badger removes
		}
		unknown = append(unknown, table.IDToFilename(id))
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s lists %d table files that are missing (%s) (nothing was changed; see 'turnback verify --repair')",
			ErrDamaged, mpath, len(missing), sample(missing))
	}
	if len(unknown) > 0 {
		why := "does not list"
		if m.partial {
			why = "is cut short and does not list"
		}
		return fmt.Errorf("%w: %s %s %d table files (%s); opening would delete them (nothing was changed; see 'turnback verify --repair')",
			ErrDamaged, mpath, why, len(unknown), sample(unknown))
	}
	return nil
}

// precheckSettled is precheck for an open that cannot hold the lock
// while it checks. A writer holding the store adds a table file, then
// lists it in the MANIFEST: a look between the two reads sees a table
// listed and missing. Damage stays; such a view passes within a few
// tries.
func precheckSettled(dir string) error {
	err := precheck(dir)
	for pause := 5 * time.Millisecond; errors.Is(err, ErrDamaged) && pause <= 80*time.Millisecond; pause *= 2 {
		time.Sleep(pause)
		err = precheck(dir)
	}
	return err
}

// sample names up to three files of a list.
func sample(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:3], ", ") + ", ..."
}

// maxManifest bounds the MANIFEST read (a real one is rewritten by Badger
// long before this).
const maxManifest = 256 << 20

// readManifest replays a Badger MANIFEST: its magic, then records of a
// 4-byte length, a 4-byte CRC-32C and a ManifestChangeSet.
func readManifest(path string) (*manifestState, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf, err := io.ReadAll(io.LimitReader(f, maxManifest+1))
	if err != nil {
		return nil, err
	}
	if len(buf) > maxManifest {
		return nil, fmt.Errorf("larger than %d bytes", maxManifest)
	}
	return parseManifest(buf)
}

// parseManifest replays the bytes of a MANIFEST.
func parseManifest(buf []byte) (*manifestState, error) {
	if len(buf) < len(manifestMagic) || !bytes.Equal(buf[:4], manifestMagic[:4]) {
		return nil, errors.New("not a Badger MANIFEST (bad magic)")
	}
	if !bytes.Equal(buf[:len(manifestMagic)], manifestMagic) {
		return nil, fmt.Errorf("unsupported MANIFEST version %x", buf[4:8])
	}
	m := &manifestState{live: map[uint64]bool{}, deleted: map[uint64]bool{}, level: map[uint64]int{}}
	rest := buf[len(manifestMagic):]
	crcTable := crc32.MakeTable(crc32.Castagnoli)
	for len(rest) > 0 {
		if len(rest) < 8 {
			m.partial = true
			break
		}
		n := binary.BigEndian.Uint32(rest[:4])
		sum := binary.BigEndian.Uint32(rest[4:8])
		if uint64(n) > uint64(len(rest)-8) {
			m.partial = true
			break
		}
		rec := rest[8 : 8+n]
		if crc32.Checksum(rec, crcTable) != sum {
			return nil, fmt.Errorf("record at %d fails its checksum", len(buf)-len(rest))
		}
		var cs pb.ManifestChangeSet
		if err := proto.Unmarshal(rec, &cs); err != nil {
			return nil, fmt.Errorf("record at %d: %v", len(buf)-len(rest), err)
		}
		for _, c := range cs.Changes {
			m.maxID = max(m.maxID, c.Id)
			switch c.Op {
			case pb.ManifestChange_CREATE:
				m.live[c.Id] = true
				m.level[c.Id] = int(c.Level)
				delete(m.deleted, c.Id)
			case pb.ManifestChange_DELETE:
				delete(m.live, c.Id)
				delete(m.level, c.Id)
				m.deleted[c.Id] = true
			default:
				return nil, fmt.Errorf("record at %d: unknown change %d", len(buf)-len(rest), c.Op)
			}
		}
		rest = rest[8+n:]
	}
	return m, nil
}
