package cas

// Level 0 of the LSM tree. Every write-mode process flushes its memtable
// there as one table at Close: a fold of the overlay log, an undo. Badger
// merges level 0 into the level below only in a process that lives long
// enough for its compactors to run, so the tables of short commands pile
// up, each mostly stat cache records that a later one replaces. A
// write-mode open decides, from the MANIFEST, to have Close merge them
// when that is cheap (l0Merge).

import (
	"os"
	"path/filepath"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/table"
)

// Bounds of the merge at Close. l0MergeTables: level 0 would hold this
// many tables after the Close's own flush. Two: a Close that finds a
// table there merges, so at most one superseded table stays (a merge
// of the Go tree's store takes about 13 ms and frees 0.5 MB; write-mode
// opens are rare: a fold, gc). l0MergeMaxBytes: the tables the merge
// reads at most, level 0's and the base level's together; it writes
// about as much. Variables for tests.
var (
	l0MergeTables         = 2
	l0MergeMaxBytes int64 = 16 << 20
)

// Badger's level sizing (its defaults, which badgerOptions keeps).
const (
	badgerLevels        = 7
	badgerBaseLevelSize = 10 << 20
	badgerLevelMultiple = 10
)

// l0Merge reports whether a write-mode open of the database in dir
// should merge level 0 at Close (Badger's CompactL0OnClose): level 0
// holds l0MergeTables-1 tables or more, so with the one Close flushes it
// reaches l0MergeTables, and the merge reads at most l0MergeMaxBytes.
// Any doubt (no MANIFEST, a table it cannot stat) says no.
func l0Merge(dir string) bool {
	m, err := readManifest(filepath.Join(dir, manifestName))
	if err != nil || m.partial {
		return false
	}
	var l0 []uint64
	for id, lv := range m.level {
		if lv == 0 {
			l0 = append(l0, id)
		}
	}
	if len(l0)+1 < l0MergeTables {
		return false
	}
	var sizes [badgerLevels]int64
	for id, lv := range m.level {
		if lv < 0 || lv >= badgerLevels {
			return false
		}
		fi, err := os.Stat(filepath.Join(dir, table.IDToFilename(id)))
		if err != nil {
			return false
		}
		sizes[lv] += fi.Size()
	}
	return sizes[0]+sizes[baseLevel(sizes)] <= l0MergeMaxBytes
}

// baseLevel is the level Badger compacts level 0 into, given each
// level's bytes: levelsController.levelTargets of Badger v4.9.6.
func baseLevel(sizes [badgerLevels]int64) int {
	var target [badgerLevels]int64
	base := 0
	db := sizes[badgerLevels-1]
	for i := badgerLevels - 1; i > 0; i-- {
		target[i] = max(db, badgerBaseLevelSize)
		if base == 0 && target[i] <= badgerBaseLevelSize {
			base = i
		}
		db /= badgerLevelMultiple
	}
	if base == 0 {
		base = 1
	}
	for i := base; i < badgerLevels-1; i++ {
		if sizes[i] > 0 {
			break
		}
		base = i
	}
	if base < badgerLevels-1 && sizes[base] == 0 && sizes[base+1] < target[base+1] && sizes[base+1] < badgerBaseLevelSize {
		base++
	}
	for i := 1; i < base; i++ {
		if sizes[i] > 0 {
			return i
		}
	}
	return base
}

// lastRead runs an empty read transaction on db, about to close. A
// merge keeps, besides each key's newest version, the newest one at or
// below the read timestamp every reader has finished with; a read after
// the last write moves that up to the last write, so the merge at Close
// keeps one version of each key instead of two.
func lastRead(db *badger.DB) {
	_ = db.View(func(*badger.Txn) error { return nil })
}
