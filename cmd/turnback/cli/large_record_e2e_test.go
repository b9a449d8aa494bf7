package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/testtier"
)

// largeRecords returns the keys of the records of at least 1 MiB in the
// store's database (records and the stat cache, not content), read
// back whole, and
// the bytes its value log files hold beyond their headers.
func largeRecords(t *testing.T, store string) (keys []string, vlog int64) {
	t.Helper()
	db := filepath.Join(store, "db")
	b, err := cas.OpenBadger(context.Background(), db, cas.BadgerOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, prefix := range []string{"m/", "s/"} { // records, the stat cache
		err = b.Scan(context.Background(), []byte(prefix), false, func(k, v []byte) error {
			if len(v) >= 1<<20 {
				keys = append(keys, string(k))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err) // a pack a record names is gone
		}
	}
	ents, err := os.ReadDir(db)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".vlog") {
			fi, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			vlog += max(fi.Size()-20, 0)
		}
	}
	return keys, vlog
}

// A directory of 16,000 files gives a stat cache record over 1 MiB,
// which goes to a pack. Turns, gc (which repacks), verify, undo, redo
// and a snap that reads the record back all work on it; the value log
// stays empty.
func TestLargeRecordLifecycle(t *testing.T) {
	testtier.Slow(t)
	t.Parallel()
	e := newCLI(t, "work")
	e.store = filepath.Join(e.base, "store")
	e.mkdir("big")
	for i := range 16000 {
		e.write(fmt.Sprintf("big/a-file-with-a-rather-long-name-%05d.txt", i), fmt.Sprint("content ", i))
	}
	e.ok("snap", "-m", "first")
	e.write("big/a-file-with-a-rather-long-name-00007.txt", "edited")
	e.write("big/new.txt", "new")
	e.ok("end")
	keys, vlog := largeRecords(t, e.store)
	if len(keys) == 0 {
		t.Fatal("no record of 1 MiB or more: the test does not reach its case")
	}
	t.Logf("large records: %q", keys)
	if vlog != 0 {
		t.Errorf("value log holds %d bytes, want none", vlog)
	}
	const edited = "big/a-file-with-a-rather-long-name-00007.txt"
	before, after := "content 7", "edited"
	for i := range 3 {
		e.ok("gc")
		if d := e.verify(); d.Snapshots == 0 {
			t.Fatalf("gc %d: verify saw no snapshot", i)
		}
		e.ok("undo")
		if got := string(e.read(edited)); got != before {
			t.Fatalf("gc %d: after undo: %q, want %q", i, got, before)
		}
		e.ok("redo")
		if got := string(e.read(edited)); got != after {
			t.Fatalf("gc %d: after redo: %q, want %q", i, got, after)
		}
		e.ok("snap", "-m", fmt.Sprint("again ", i))
		before, after = after, fmt.Sprint("edited ", i)
		e.write(edited, after)
		e.write(fmt.Sprintf("big/more-%d.txt", i), "more")
		e.ok("end")
		if got, _ := largeRecords(t, e.store); len(got) == 0 {
			t.Fatalf("gc %d: the large records are gone", i)
		}
	}
	e.ok("gc")
	e.verify()
	if _, vlog := largeRecords(t, e.store); vlog != 0 {
		t.Errorf("value log holds %d bytes at the end, want none", vlog)
	}
}
