package restore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
)

// File names in the journal directory (the store, outside the work tree).
const (
	journalName = "journal" // the commit point: present = roll forward
	stagingName = "staging" // staged files of a restore not yet committed
	// committedName is the journal again, from just before the caller's
	// metadata is committed: that restore can only be finished.
	committedName = "committed"
)

type jEntry struct {
	Kind       string `json:"kind"`
	Mode       uint32 `json:"mode"`
	Size       int64  `json:"size,omitempty"`
	Hash       string `json:"hash,omitempty"`
	Target     string `json:"target,omitempty"`
	Uncaptured bool   `json:"uncaptured,omitempty"`
	Files      int64  `json:"files,omitempty"`
	// Owner and hard-link group (stage.go, owner.go); Owner is nil when
	// the tree recorded none.
	Owner  *[2]uint32 `json:"owner,omitempty"`
	LinkTo string     `json:"link_to,omitempty"`
}

type jAction struct {
	Path  string  `json:"path"`
	Old   *jEntry `json:"old,omitempty"`
	New   *jEntry `json:"new,omitempty"`
	Stage string  `json:"stage,omitempty"` // staged file, relative to the work tree
}

// journal is the record of a committed restore: enough to finish it
// after a crash, and the caller's metadata to commit with it.
type journal struct {
	Version  int       `json:"v"`
	ID       string    `json:"id"`
	WorkTree string    `json:"work_tree"`
	Actions  []jAction `json:"actions"`
	Meta     []byte    `json:"meta,omitempty"`
	// Displaced: what the restore found and saved, at the moment it
	// replaced or removed a path, that the plan did not expect there.
	Displaced []jDisplaced `json:"displaced,omitempty"`
	// Rollback: this journal puts back what an interrupted restore
	// changed; it commits no metadata.
	Rollback bool `json:"rollback,omitempty"`
}

type jDisplaced struct {
	Path  string  `json:"path"`
	Entry *jEntry `json:"entry"`
}

// staging lists the staged files of a restore before its commit point,
// so that recovery can delete them if the restore never committed.
type staging struct {
	ID    string   `json:"id"`
	Files []string `json:"files"`
}

var kinds = map[string]manifest.Kind{"file": manifest.KindFile, "dir": manifest.KindDir, "symlink": manifest.KindSymlink, "fifo": manifest.KindFIFO}

func toJ(e *manifest.Entry) *jEntry {
	if e == nil {
		return nil
	}
	j := &jEntry{Kind: e.Kind.String(), Mode: e.Mode, Size: e.Size, Target: e.Target, Uncaptured: e.Uncaptured, Files: e.Files}
	if !e.Hash.IsZero() {
		j.Hash = e.Hash.String()
	}
	if e.Owned {
		j.Owner = &[2]uint32{e.UID, e.GID}
	}
	j.LinkTo = e.LinkTo
	return j
}

func fromJ(name string, j *jEntry) (*manifest.Entry, error) {
	if j == nil {
		return nil, nil
	}
	k, ok := kinds[j.Kind]
	if !ok {
		return nil, fmt.Errorf("restore: journal: unknown kind %q", j.Kind)
	}
	e := &manifest.Entry{Name: name, Kind: k, Mode: j.Mode, Size: j.Size, Target: j.Target, Uncaptured: j.Uncaptured, Files: j.Files, LinkTo: j.LinkTo}
	if j.Owner != nil {
		e.Owned, e.UID, e.GID = true, j.Owner[0], j.Owner[1]
	}
	if j.Hash != "" {
		h, err := cas.ParseHash(j.Hash)
		if err != nil {
			return nil, fmt.Errorf("restore: journal: %w", err)
		}
		e.Hash = h
	}
	return e, nil
}

// writeDurable writes data to dir/name through a temporary file, fsyncs
// it, renames it into place and fsyncs the directory.
func writeDurable(dir, name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("restore: encode %s: %w", name, err)
	}
	tmp := filepath.Join(dir, name+".tmp")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("restore: write %s: %w", name, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("restore: write %s: %w", name, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("restore: sync %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("restore: write %s: %w", name, err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("restore: write %s: %w", name, err)
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil // not all platforms can open directories; best effort
	}
	defer d.Close()
	_ = d.Sync()
	return nil
}

func readJSON(path string, v any) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("restore: read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("restore: %s is damaged: %w", path, err)
	}
	return true, nil
}

func removeDurable(dir, name string) error {
	if err := removeName(dir, name); err != nil {
		return err
	}
	return syncDir(dir)
}

// removeName removes dir/name (absent is fine) without syncing dir: for
// a caller whose next durable step syncs dir anyway.
func removeName(dir, name string) error {
	if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("restore: remove %s: %w", name, err)
	}
	return nil
}

// markCommitted makes committedName the journal j: a hard link, which
// needs no free space (a full disk must not keep a restore from
// finishing), else a copy.
func markCommitted(dir string, j *journal) error {
	if err := removeName(dir, committedName); err != nil {
		return err
	}
	if err := os.Link(filepath.Join(dir, journalName), filepath.Join(dir, committedName)); err != nil {
		return writeDurable(dir, committedName, j)
	}
	return syncDir(dir)
}
