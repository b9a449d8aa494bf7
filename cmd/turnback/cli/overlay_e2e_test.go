package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSnapWritesOnlyTheOverlayLog: without a daemon, an end and a snap
// leave every file of the store's Badger database as it was (no
// write-mode open, no flush at exit): their records go to
// db/turnback-overlay.log and their new content to the pack files. log
// reads them. An undo and a redo commit there too (cas.Badger.Reserve),
// and the folder is back byte for byte.
func TestSnapWritesOnlyTheOverlayLog(t *testing.T) {
	t.Parallel()
	e := newStoreEnv(t)
	e.writeBytes("a.txt", []byte("one\n"))
	e.ok("snap") // creates the database (write mode)
	db := filepath.Join(e.store, "db")
	overlay := filepath.Join(db, "turnback-overlay.log")
	badgerFiles := func() string {
		ents, err := os.ReadDir(db)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, ent := range ents {
			n := ent.Name()
			if strings.HasSuffix(n, ".pack") || n == "turnback-overlay.log" || n == "HOLDER" || n == "turnback-holder" {
				continue
			}
			data, err := os.ReadFile(filepath.Join(db, n))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, n+" "+strconv.Itoa(len(data))+" "+string(data))
		}
		return strings.Join(out, "\x00")
	}
	before := badgerFiles()
	e.writeBytes("a.txt", []byte("two\n"))
	e.writeBytes("b.txt", noise(3, 4000))
	e.ok("end")
	e.ok("snap", "-m", "next")
	if badgerFiles() != before {
		t.Error("an end and a snap changed the files of the Badger database")
	}
	if _, err := os.Stat(overlay); err != nil {
		t.Fatalf("no overlay log after the snap: %v", err)
	}
	if out := e.ok("log").stdout; !strings.Contains(out, "next") || !strings.Contains(out, "+1 ~1 -0") {
		t.Errorf("log does not show the turns the overlay log holds:\n%s", out)
	}
	e.ok("undo")
	if got := string(e.read("a.txt")); got != "one\n" {
		t.Errorf("after undo a.txt is %q", got)
	}
	if _, err := os.Lstat(e.path("b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after undo b.txt is still there: %v", err)
	}
	// The undo reserved its commit's space in the log, and wrote there.
	if badgerFiles() != before {
		t.Error("the undo changed the files of the Badger database")
	}
	if out := e.ok("log").stdout; !strings.Contains(out, "undone") {
		t.Errorf("log does not show the undo the overlay log holds:\n%s", out)
	}
	e.ok("redo")
	if got := string(e.read("a.txt")); got != "two\n" {
		t.Errorf("after redo a.txt is %q", got)
	}
}
