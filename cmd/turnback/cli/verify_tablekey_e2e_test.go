package cli

// A flipped byte in one of Badger's table files, where it holds a
// record's key.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestRepairFixesFlippedSnapshotKey flips one byte inside a snapshot
// record's key in the store's table file (bit rot Badger does not check
// by default). verify reports the damage; verify --repair must then
// bring the store back to one gc runs on, and the turns whose states
// are whole must still undo. Before, verify --repair failed with the
// same error as verify, and gc failed on every run from then on. The
// record's value is whole and the state it belongs to is the one the
// newest turn ends at, which has no record left: repair stores it
// again under that key, says so, and every turn undoes byte for byte.
func TestRepairFixesFlippedSnapshotKey(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	ip := e.setup() // the turns and the gc are the setting, not the check
	e.write("a.txt", "base\n")
	var states []map[string][]byte // the folder before each turn, then after the last
	for i := range 4 {
		states = append(states, gcFolder(t, e))
		ip.ok("snap", "-m", fmt.Sprintf("t%d", i))
		e.write("a.txt", fmt.Sprintf("v%d\n", i))
		e.writeBytes(fmt.Sprintf("f%d.bin", i), gcRandom(uint64(300+i), 50<<10))
		ip.ok("end")
	}
	states = append(states, gcFolder(t, e))
	turns := ip.turns()
	newest := turns[0].After
	ip.ok("gc") // flattens the records into one table
	stores, _ := filepath.Glob(filepath.Join(e.store, "db", "*.sst"))
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
	r := e.run("verify", "--repair")
	if r.code != 0 {
		t.Fatalf("verify --repair cannot repair a damaged record key: %v", r)
	}
	want := "is stored again as state " + newest[:12] + " (turn 4 of session default)"
	if !strings.Contains(r.stdout, want) {
		t.Errorf("verify --repair does not say which state the damaged record was (want %q): %v", want, r)
	}
	e.ok("verify")
	if r := e.run("gc"); r.code != 0 {
		t.Errorf("gc fails on the store for good: %v", r)
	}
	e.ok("verify")
	for i := 3; i >= 0; i-- {
		e.ok("undo")
		if got := gcFolder(t, e); !reflect.DeepEqual(got, states[i]) {
			t.Fatalf("after undoing turn %d the folder is not what it was before it", i+1)
		}
	}
}

// gcFolder reads every file of the work tree of e, by relative path.
func gcFolder(t *testing.T, e *cliEnv) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(e.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(e.dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
