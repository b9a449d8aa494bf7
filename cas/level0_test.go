package cas

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
)

// level0Tables returns how many tables level 0 of the database in dir
// holds, and the bytes of all its tables, as its MANIFEST says.
func level0Tables(t *testing.T, dir string) (n int, bytes int64) {
	t.Helper()
	m, err := readManifest(filepath.Join(dir, manifestName))
	if err != nil {
		t.Fatal(err)
	}
	for id, lv := range m.level {
		if lv == 0 {
			n++
		}
		fi, err := os.Stat(filepath.Join(dir, fmt.Sprintf("%06d.sst", id)))
		if err != nil {
			t.Fatal(err)
		}
		bytes += fi.Size()
	}
	return n, bytes
}

// l0Round is one short command: the store opened as the CLI opens it
// (deferred, or for writing at once as undo does), records of 64
// directories rewritten (about 150 KB, as a capture rewrites the stat
// cache records of the directories a turn touched), the overlay log
// folded, the store closed.
func l0Round(t *testing.T, dir string, round int, writeNow bool) {
	t.Helper()
	ctx := context.Background()
	b, err := OpenBadger(ctx, dir, BadgerOptions{Deferred: !writeNow})
	if err != nil {
		t.Fatal(err)
	}
	var es []Entry
	for d := range 64 {
		es = append(es, Entry{Key: []byte(fmt.Sprintf("s/dir%02d", d)), Value: l0Value(round, d)})
	}
	if err := b.Set(ctx, es...); err != nil {
		t.Fatal(err)
	}
	if err := b.Upgrade(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

func l0Value(round, d int) []byte { return randBytes(uint64(round<<8|d), 2400) }

// TestLevel0Merged: short commands, each leaving a table in level 0,
// leave fewer than l0MergeTables there however many run, and the
// superseded records go: the tables stay near one round's records
// beside the first. Every record reads back as last written. Without the
// merge at Close, twelve rounds leave ten tables or more. The fast tier
// runs 8 rounds: kept, the superseded records of 8 would pass the size
// bound, and a second table in level 0 fails the second round.
func TestLevel0Merged(t *testing.T) {
	rounds := 12
	if testtier.Short() {
		rounds = 8
	}
	for _, writeNow := range []bool{false, true} {
		t.Run(fmt.Sprintf("writeNow=%v", writeNow), func(t *testing.T) {
			dir := t.TempDir()
			for r := range rounds {
				l0Round(t, dir, r, writeNow)
				n, size := level0Tables(t, dir)
				if n >= l0MergeTables {
					t.Fatalf("round %d: level 0 holds %d tables", r, n)
				}
				// One round writes 64 × 2.4 KB: l0MergeTables-1 rounds
				// in level 0 and one merged below (two if a merge kept
				// the version before the last), with the tables' index
				// and filters.
				if size > 5*64*2600+64<<10 {
					t.Fatalf("round %d: the tables hold %d bytes", r, size)
				}
			}
			b, err := OpenBadger(context.Background(), dir, BadgerOptions{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			for d := range 64 {
				v, err := b.Get(context.Background(), []byte(fmt.Sprintf("s/dir%02d", d)))
				if err != nil || !bytes.Equal(v, l0Value(rounds-1, d)) {
					t.Fatalf("s/dir%02d: %d bytes, %v; want round %d's", d, len(v), err, rounds-1)
				}
			}
		})
	}
}

// TestLevel0MergeBounded: a merge that would read more than
// l0MergeMaxBytes is left to Badger's compactors: level 0 grows.
func TestLevel0MergeBounded(t *testing.T) {
	defer func(v int64) { l0MergeMaxBytes = v }(l0MergeMaxBytes)
	l0MergeMaxBytes = 100 << 10 // less than one round's table
	// Badger's own compactors start 0-1 s after an open, and may merge
	// level 0 in a slow round: a count of 6 in any of three tries shows
	// that Close did not merge. The decision itself is checked each round.
	got := 0
	for try := 0; try < 3 && got != 6; try++ {
		dir := t.TempDir()
		for r := range 6 {
			if l0Merge(dir) {
				t.Fatalf("round %d: l0Merge asks for a merge over the bound", r)
			}
			l0Round(t, dir, r, true)
		}
		got, _ = level0Tables(t, dir)
		if got != 6 {
			t.Logf("try %d: level 0 holds %d tables", try, got)
		}
	}
	if got != 6 {
		t.Fatalf("level 0 holds %d tables, want 6 (no merge over the bound)", got)
	}
}

// TestBaseLevel: the level Badger v4.9.6 compacts level 0 into
// (levelsController.levelTargets), for level sizes.
func TestBaseLevel(t *testing.T) {
	o := badgerOptions(t.TempDir())
	if o.MaxLevels != badgerLevels || o.BaseLevelSize != badgerBaseLevelSize || o.LevelSizeMultiplier != badgerLevelMultiple {
		t.Fatalf("badgerOptions: %d levels, base level size %d, multiplier %d: update baseLevel's constants",
			o.MaxLevels, o.BaseLevelSize, o.LevelSizeMultiplier)
	}
	const mb = 1 << 20
	for _, c := range []struct {
		sizes [badgerLevels]int64
		want  int
	}{
		{[badgerLevels]int64{}, 6},
		{[badgerLevels]int64{0: 3 * mb}, 6},
		{[badgerLevels]int64{6: 2 * mb}, 6},
		{[badgerLevels]int64{6: 10 * mb}, 6},
		{[badgerLevels]int64{6: 15 * mb}, 5},
		{[badgerLevels]int64{5: 3 * mb, 6: 15 * mb}, 5},
		// Down through empty levels to the one above the last.
		{[badgerLevels]int64{6: 150 * mb}, 5},
		{[badgerLevels]int64{5: 12 * mb, 6: 150 * mb}, 4},
		{[badgerLevels]int64{4: 2 * mb, 5: 12 * mb, 6: 150 * mb}, 4},
		{[badgerLevels]int64{2: 1, 5: 12 * mb, 6: 150 * mb}, 2},
		// A level 4 smaller than its target under an empty level 3: 4.
		{[badgerLevels]int64{4: 1 * mb, 5: 12 * mb, 6: 1500 * mb}, 4},
		// Past what the levels' targets cover: level 1, then down.
		{[badgerLevels]int64{6: 1 << 40}, 5},
		{[badgerLevels]int64{2: 1, 6: 1 << 40}, 2},
	} {
		if got := baseLevel(c.sizes); got != c.want {
			t.Errorf("baseLevel(%v) = %d, want %d", c.sizes, got, c.want)
		}
	}
}
