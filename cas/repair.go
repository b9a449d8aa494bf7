package cas

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
	"github.com/dgraph-io/ristretto/v2/z"
)

// Repair of a damaged database (see precheck and "Repair" in the
// package doc). Nothing is deleted: the damaged database is moved aside
// whole, and a new one is built from what can still be read of it.

// RepairResult reports a Repair.
type RepairResult struct {
	Damage    string   `json:"damage"`     // what precheck found
	MovedTo   string   `json:"moved_to"`   // where the damaged database now is
	Tables    int      `json:"tables"`     // table files read
	BadTables []string `json:"bad_tables"` // table files that could not be read (kept aside)
	Memtables int      `json:"memtables"`  // memtable (log) files replayed
	BadMems   []string `json:"bad_memtables"`
	Packs     int      `json:"packs"` // pack files linked into the new database
	Keys      int      `json:"keys"`  // records recovered
	Lost      int      `json:"lost"`  // records that named the value log (not recovered)
}

// Repair rebuilds the Badger database in dir when precheck finds it
// damaged (and returns nil, nil when it does not). The damaged directory
// is renamed to damaged-<UTC time>/ beside dir and kept as it is; a new
// database in dir gets the newest version of every record that its table
// files and memtable logs still hold (tables the MANIFEST no longer lists
// included: they are older versions, which newer ones override, or the
// history a lost MANIFEST forgot), and hard links to its pack files. A
// table that cannot be read is named in the result and skipped. The
// caller then verifies what the records name.
func Repair(ctx context.Context, dir string) (*RepairResult, error) {
	damage := precheck(dir)
	if damage == nil {
		return nil, nil
	}
	if !errors.Is(damage, ErrDamaged) {
		return nil, damage
	}
	if canLockDir {
		// A process that holds the store would go on writing into the
		// database moved aside.
		lock, err := lockForRepair(ctx, dir)
		if err != nil {
			return nil, err
		}
		defer lock.Close()
		if damage = precheck(dir); damage == nil || !errors.Is(damage, ErrDamaged) {
			return nil, damage
		}
	}
	res := &RepairResult{Damage: damage.Error()}
	aside := filepath.Join(filepath.Dir(dir), "damaged-"+time.Now().UTC().Format("20060102T150405Z"))
	if err := os.Mkdir(aside, 0o700); err != nil {
		return nil, fmt.Errorf("cas: repair: %w", err)
	}
	old := filepath.Join(aside, filepath.Base(dir))
	if err := os.Rename(dir, old); err != nil {
		return nil, fmt.Errorf("cas: repair: move %s aside: %w", dir, err)
	}
	if err := syncDir(filepath.Dir(dir)); err != nil {
		return nil, fmt.Errorf("cas: repair: %w", err)
	}
	res.MovedTo = old
	recs, err := readDamaged(ctx, old, res)
	if err != nil {
		return res, err
	}
	readOverlayInto(old, recs, res)
	b, err := OpenBadger(ctx, dir, BadgerOptions{Holder: "turnback verify --repair"})
	if err != nil {
		return res, err
	}
	defer b.Close()
	ents, err := os.ReadDir(old)
	if err != nil {
		return res, fmt.Errorf("cas: repair: %w", err)
	}
	for _, e := range ents {
		if _, ok := parsePackName(e.Name()); ok && e.Type().IsRegular() {
			if err := os.Link(filepath.Join(old, e.Name()), filepath.Join(dir, e.Name())); err != nil {
				return res, fmt.Errorf("cas: repair: link %s: %w", e.Name(), err)
			}
			res.Packs++
		}
	}
	wb := b.db.NewWriteBatch()
	keys := make([]string, 0, len(recs))
	for k := range recs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fresh := false // packs written to from here on are new ones
	for _, k := range keys {
		r := recs[k]
		if r.deleted {
			continue
		}
		e := badger.NewEntry([]byte(k), r.value).WithMeta(r.userMeta)
		if r.userMeta == 0 && len(r.value) >= valueThreshold {
			// A large record (from the overlay log) goes to a new pack:
			// never appended to a linked one, which the copy aside shares.
			if !fresh {
				if err := b.packs.startFresh(); err != nil {
					wb.Cancel()
					return res, fmt.Errorf("cas: repair: %w", err)
				}
				fresh = true
			}
			set, err := b.setEntries([]Entry{{Key: []byte(k), Value: r.value}})
			if err != nil {
				wb.Cancel()
				return res, fmt.Errorf("cas: repair: %w", err)
			}
			e = set[0]
		}
		if err := wb.SetEntry(e); err != nil {
			wb.Cancel()
			return res, fmt.Errorf("cas: repair: %w", err)
		}
		res.Keys++
	}
	if err := wb.Flush(); err != nil {
		return res, fmt.Errorf("cas: repair: %w", err)
	}
	if err := b.Sync(); err != nil {
		return res, err
	}
	return res, b.Close()
}

// lockForRepair takes the directory lock of dir, waiting up to 10 s for
// a holder to let go.
func lockForRepair(ctx context.Context, dir string) (*os.File, error) {
	for i := 0; ; i++ {
		lock, err := lockDir(dir)
		if !errors.Is(err, errDirLocked) {
			return lock, err
		}
		if i == 200 {
			return nil, fmt.Errorf("%w: %s is held by %s", ErrBusy, dir, readHolder(dir))
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// readOverlayInto lays the records of the overlay log in old, newer
// than any table's, over recs: every whole frame before any damage (a
// log damaged past that is named with the bad memtables).
func readOverlayInto(old string, recs map[string]*repairRec, res *RepairResult) {
	data, err := readLog(filepath.Join(old, overlayName))
	if asLogDamage(err) != nil {
		res.Memtables++
		res.BadMems = append(res.BadMems, overlayName)
		return
	}
	if err != nil {
		return
	}
	res.Memtables++
	var ops [][]overlayOp
	id, _, err := parseOverlay(data, func(f []overlayOp) { ops = append(ops, f) })
	if err != nil {
		res.BadMems = append(res.BadMems, overlayName)
	}
	if f, ok := recs[string(foldedKey)]; ok && !f.deleted && bytes.Equal(f.value, id) {
		return // folded already (its removal undone by a crash)
	}
	for _, f := range ops {
		for _, op := range f {
			r := &repairRec{version: math.MaxUint64, deleted: op.del, value: bytes.Clone(op.value)}
			if op.ptr {
				r.userMeta = metaPacked
			}
			recs[string(op.key)] = r
		}
	}
}

// repairRec is the newest version of one record seen so far.
type repairRec struct {
	version  uint64
	deleted  bool
	userMeta byte
	value    []byte
}

// Badger's meta bits (value.go), for the records a table holds.
const (
	badgerBitDelete       byte = 1 << 0
	badgerBitValuePointer byte = 1 << 1
)

func keep(recs map[string]*repairRec, key []byte, version uint64, deleted bool, userMeta byte, value []byte) {
	if bytes.HasPrefix(key, []byte("!badger!")) {
		return // Badger's own bookkeeping
	}
	if r, ok := recs[string(key)]; ok && r.version >= version {
		return
	}
	recs[string(key)] = &repairRec{version: version, deleted: deleted, userMeta: userMeta, value: bytes.Clone(value)}
}

// readDamaged collects the newest version of every record in the table
// files and memtable logs of old, which it does not change.
func readDamaged(ctx context.Context, old string, res *RepairResult) (map[string]*repairRec, error) {
	recs := map[string]*repairRec{}
	ents, err := os.ReadDir(old)
	if err != nil {
		return nil, fmt.Errorf("cas: repair: %w", err)
	}
	var mems []string
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name := e.Name()
		if strings.HasSuffix(name, ".mem") {
			mems = append(mems, name)
			continue
		}
		if _, ok := table.ParseFileID(name); !ok {
			continue
		}
		if err := readTable(filepath.Join(old, name), recs, res); err != nil {
			res.BadTables = append(res.BadTables, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		res.Tables++
	}
	if len(mems) > 0 {
		if err := readMemtables(ctx, old, mems, recs, res); err != nil {
			res.BadMems = append(res.BadMems, err.Error())
		}
	}
	return recs, nil
}

// readTable reads one table file, read-only (the table is never closed
// through Badger, whose last reference deletes the file).
func readTable(path string, recs map[string]*repairRec, res *RepairResult) (err error) {
	defer func() {
		// A damaged table can make Badger's decoder panic; it is skipped.
		if p := recover(); p != nil {
			err = fmt.Errorf("unreadable: %v", p)
		}
	}()
	mf, err := z.OpenMmapFile(path, os.O_RDONLY, 0)
	if err != nil && !errors.Is(err, z.NewFile) {
		return err
	}
	defer func() {
		_ = z.Munmap(mf.Data)
		_ = mf.Fd.Close()
	}()
	t, err := table.OpenTable(mf, table.Options{ReadOnly: true, ChkMode: options.OnTableAndBlockRead, Compression: options.None, BlockSize: 4 << 10})
	if err != nil {
		return err
	}
	it := t.NewIterator(0)
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		k := it.Key()
		v := it.Value()
		if v.Meta&badgerBitValuePointer != 0 {
			res.Lost++
			continue
		}
		keep(recs, y.ParseKey(k), y.ParseTs(k), v.Meta&badgerBitDelete != 0, v.UserMeta, v.Value)
	}
	return nil
}

// readMemtables replays memtable logs through Badger itself: copies of
// them go into a scratch database (a fresh MANIFEST), which Badger opens
// by replaying them; its records are then read like a table's.
func readMemtables(ctx context.Context, old string, mems []string, recs map[string]*repairRec, res *RepairResult) error {
	tmp, err := os.MkdirTemp(filepath.Dir(old), "replay-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // the scratch copy only
	db, err := badger.Open(badgerOptions(tmp))
	if err != nil {
		return err
	}
	if err := db.Close(); err != nil {
		return err
	}
	for _, m := range mems {
		if err := copyFile(filepath.Join(old, m), filepath.Join(tmp, "9"+m)); err != nil {
			return err
		}
	}
	db, err = badger.Open(badgerOptions(tmp))
	if err != nil {
		return fmt.Errorf("memtables %s: %v", strings.Join(mems, ", "), err)
	}
	defer db.Close()
	res.Memtables = len(mems)
	opt := badger.DefaultIteratorOptions
	opt.AllVersions = true
	return viewEach(ctx, db, opt, func(item *badger.Item) error {
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		keep(recs, item.KeyCopy(nil), item.Version(), item.IsDeletedOrExpired(), item.UserMeta(), v)
		return nil
	})
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
