package storedir

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/turnback/turnback/cas"
)

// DefaultLockWait is how long opening a store waits for another
// process by default (turnback.Open, and Inspect's look at a legacy
// store's database).
const DefaultLockWait = 10 * time.Second

// WorkTreeNote is the file in the store directory that records the work
// tree, readable without opening (and locking) the database.
const WorkTreeNote = "worktree"

// RecordedWorkTree returns the work tree the note in storeDir records.
// Only the newline RecordWorkTree ends it with is cut: a path may end in
// a space or a newline.
func RecordedWorkTree(storeDir string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(storeDir, WorkTreeNote))
	if err != nil {
		return "", false
	}
	return strings.TrimSuffix(string(data), "\n"), true
}

// RecordWorkTree writes the note in storeDir that records wt.
func RecordWorkTree(storeDir, wt string) error {
	return writeFileAtomic(filepath.Join(storeDir, WorkTreeNote), []byte(wt+"\n"))
}

func writeFileAtomic(name string, data []byte) error {
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

// Writable reports whether the store's database can be written
// with the reserve free (see cas.NoSpaceError).
func Writable(storeDir string) bool {
	db := filepath.Join(storeDir, "db")
	if !dirWritable(storeDir) || !dirWritable(db) {
		return false
	}
	return cas.HasRoom(db)
}

// RestorePending reports whether storeDir holds the journal or the
// staging list of an undo, redo or restore that did not finish (see
// restore.Recover).
func RestorePending(storeDir string) bool {
	for _, name := range []string{"journal", "staging"} {
		if _, err := os.Lstat(filepath.Join(storeDir, name)); err == nil {
			return true
		}
	}
	return false
}
