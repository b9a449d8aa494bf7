package handoff

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/turnback/turnback/walker"
	"github.com/turnback/turnback/walker/gitindex"
)

// Name is the handoff file in the store directory.
const Name = "watch-handoff"

// Version is the version of Doc.
const Version = 2

// MaxDirs bounds the directories listed too early that a handoff
// carries: beyond it the daemon's first capture might as well read
// everything, and no handoff is written.
const MaxDirs = 1 << 16

// Doc is the handoff file.
type Doc struct {
	Version       int    `json:"version"`
	WorkTree      string `json:"work_tree"`
	Daemon        int    `json:"daemon_pid"`
	Root          string `json:"root"`
	SizeLimit     int64  `json:"size_limit"`
	LargeDirFiles int    `json:"large_dir_files"`
	// Early: the directories the capture listed before every directory
	// was watched.
	Early []string `json:"early"`
	// Totals: walker.TreeTotals.AppendPlain of the capture's trees.
	Totals []byte `json:"totals"`
	// Index: the git index versions the capture was made under
	// (walker.GitIndexes.Stamps): the daemon's next capture reads only
	// what changed if they are still current.
	Index []gitindex.Stamp `json:"index,omitempty"`
	// Skipped: what the capture skipped (walker.Result.Skipped), which
	// the daemon's incremental captures carry over for directories they
	// do not read.
	Skipped []walker.Ignored `json:"skipped,omitempty"`
	// TrackedIgnored: the capture's walker.Result.TrackedIgnored,
	// carried over the same way.
	TrackedIgnored []string `json:"tracked_ignored,omitempty"`
}

// ErrNone: no usable handoff (the reason is in the wrapping error).
var ErrNone = errors.New("no handoff")

// Remove removes the handoff file of the store in storeDir, if any.
func Remove(storeDir string) { _ = os.Remove(filepath.Join(storeDir, Name)) }

// Write writes doc, of version Version, as the handoff file of the
// store in storeDir, atomically. Failing to write it only leaves the
// daemon to make its first capture: it is not an error.
func Write(storeDir string, doc Doc) {
	doc.Version = Version
	data, err := json.Marshal(doc)
	if err != nil {
		return
	}
	p := filepath.Join(storeDir, Name)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		_ = os.Remove(tmp)
		return
	}
	if err := os.Rename(tmp, p); err != nil {
		_ = os.Remove(tmp)
	}
}

// Read reads and removes the handoff file of the store in storeDir and
// returns it if it is for this process and workTree, and was made with
// the capture settings sizeLimit and largeDirFiles. Otherwise its
// error wraps ErrNone. The caller checks the rest: that the root is in
// the store and that its watcher has not doubted.
func Read(storeDir, workTree string, sizeLimit int64, largeDirFiles int) (*Doc, error) {
	p := filepath.Join(storeDir, Name)
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: the command left none", ErrNone)
	}
	_ = os.Remove(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNone, err)
	}
	var doc Doc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrNone, p, err)
	}
	switch {
	case doc.Version != Version:
		return nil, fmt.Errorf("%w: version %d", ErrNone, doc.Version)
	case doc.Daemon != os.Getpid():
		return nil, fmt.Errorf("%w: it is for process %d", ErrNone, doc.Daemon)
	case doc.WorkTree != workTree:
		return nil, fmt.Errorf("%w: it is for %s", ErrNone, doc.WorkTree)
	case doc.SizeLimit != sizeLimit || doc.LargeDirFiles != largeDirFiles:
		return nil, fmt.Errorf("%w: capture settings (size limit or large-directory rule) differ", ErrNone)
	case len(doc.Early) > MaxDirs:
		return nil, fmt.Errorf("%w: %d directories listed too early", ErrNone, len(doc.Early))
	}
	return &doc, nil
}
