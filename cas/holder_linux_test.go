package cas

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHolderLeavesDatabaseDirAlone: a deferred open and close that
// write nothing, and a read-only one, leave the database's directory
// unchanged (the holder note comes and goes in a directory of its own):
// Badger's fsyncs of it at every open and close then have nothing to
// commit. Only the first open makes the note's directory.
func TestHolderLeavesDatabaseDirAlone(t *testing.T) {
	dir := emptyStore(t)
	for _, o := range []BadgerOptions{{Deferred: true}, {ReadOnly: true}} {
		mustOpen(t, dir, o).Close()
		before, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond) // a change would show in mtime
		b := mustOpen(t, dir, o)
		if note := readHolder(dir); !o.ReadOnly && !strings.Contains(note, "pid") {
			t.Errorf("holder note %q while open", note)
		}
		b.Close()
		after, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		st1, st2 := before.Sys().(*syscall.Stat_t), after.Sys().(*syscall.Stat_t)
		if !before.ModTime().Equal(after.ModTime()) || st1.Ctim != st2.Ctim {
			t.Errorf("%+v: an open and close changed the database directory (mtime %v -> %v)", o, before.ModTime(), after.ModTime())
		}
	}
}
