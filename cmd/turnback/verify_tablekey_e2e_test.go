package main

// A flipped byte in one of Badger's table files, where it holds a
// record's key.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestRepairFixesFlippedSnapshotKey flips one byte inside a snapshot
// record's key in the store's table file (bit rot Badger does not check
// by default). verify reports the damage; verify --repair must then
// bring the store back to one gc runs on, and the turns whose states
// are whole must still undo. Today verify --repair fails with the same
// error as verify, and gc fails on every run from then on.
func TestRepairFixesFlippedSnapshotKey(t *testing.T) {
	e := newCLI(t, "work")
	e.write("a.txt", "base\n")
	for i := range 4 {
		e.ok("snap", "-m", fmt.Sprintf("t%d", i))
		e.write("a.txt", fmt.Sprintf("v%d\n", i))
		e.writeBytes(fmt.Sprintf("f%d.bin", i), gcRandom(uint64(300+i), 50<<10))
		e.ok("end")
	}
	turns := e.turns()
	newest := turns[0].After
	e.ok("gc") // flattens the records into one table
	stores, _ := filepath.Glob(filepath.Join(e.xdg, "turnback", "*", "db", "*.sst"))
	flipped := false
	for _, sst := range stores {
		data, err := os.ReadFile(sst)
		if err != nil {
			t.Fatal(err)
		}
		// The hash's tail, where a key has it: a table stores a key's
		// suffix after the prefix it shares with the block's first key,
		// then Badger's version, whose first byte is 0xff. In a record's
		// value the hash is followed by a quote or the value's end.
		tail := []byte(newest[40:])
		i, at := 0, -1
		for {
			j := bytes.Index(data[i:], tail)
			if j < 0 {
				break
			}
			i += j + len(tail)
			if i < len(data) && data[i] == 0xff {
				at = i - len(tail)
				break
			}
		}
		if at < 0 {
			continue
		}
		data[at+10] ^= 0xff
		if err := os.WriteFile(sst, data, 0o644); err != nil {
			t.Fatal(err)
		}
		flipped = true
		break
	}
	if !flipped {
		t.Fatalf("snapshot %s not found in the table files %v", newest, stores)
	}
	e.expect(1, "verify")
	if r := e.run("verify", "--repair"); r.code != 0 {
		t.Errorf("verify --repair cannot repair a damaged record key: %v", r)
	}
	if r := e.run("gc"); r.code != 0 {
		t.Errorf("gc fails on the store for good: %v", r)
	}
}
