package storedir

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// A store directory carries a format marker, written when turnback
// creates the store and before anything else goes into it. turnback
// writes only into a directory that is absent, empty, or has the marker
// (or is a store of an earlier turnback, see recognizeLegacy); any other
// directory is refused before anything is written (ErrNotStore), so that
// --store pointed at another program's folder changes nothing there.

// MarkerName is the marker file in a store directory.
const MarkerName = "turnback-store.json"

// markerFormat names the format in the marker; FormatVersion is the
// version this turnback writes and the newest it opens. Version 2 added
// the overlay log (db/turnback-overlay.log, see cas.BadgerOptions.Deferred),
// which a turnback reading version 1 would not see: a version-1 store is
// marked 2 by the first command that opens it for writing. Version 3
// added blocks of small files (cas/block.go), whose pointers a turnback
// reading version 2 would take for damage; an older store is marked 3
// the same way, before a block is written. Version 4 stores stat cache
// records as deltas (walker/record.go), which a turnback reading version
// 3 cannot decode: its gc would then not keep the blobs they name.
const (
	markerFormat  = "turnback store"
	FormatVersion = 4
)

// Marker is the marker's content.
type Marker struct {
	Format   string `json:"format"`
	Version  int    `json:"version"`
	WorkTree string `json:"work_tree"`
	// WorkTreeBytes holds the work tree's path exactly (base64 in JSON)
	// when it is not valid UTF-8: WorkTree then has a display form only.
	WorkTreeBytes []byte `json:"work_tree_bytes,omitempty"`
}

// ExactWorkTree returns the recorded work tree's path, exactly.
func (m *Marker) ExactWorkTree() string {
	if len(m.WorkTreeBytes) > 0 {
		return string(m.WorkTreeBytes)
	}
	return m.WorkTree
}

// State is what a look at a store directory found.
type State int

const (
	Absent State = iota // no directory, or an empty one
	Marked              // has our marker
	Legacy              // a store of an earlier turnback, without the marker
)

// Inspect classifies dir without writing anything. A directory that
// is neither empty nor ours is model.ErrNotStore.
func Inspect(ctx context.Context, dir string) (State, *Marker, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return Absent, nil, nil
	}
	if err != nil {
		return 0, nil, fmt.Errorf("turnback: store %s: %w", dir, err)
	}
	var names []string
	fresh := true // only files turnback writes beside a store before its database
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, MarkerName+".") && strings.HasSuffix(n, ".tmp") {
			continue // a marker whose writing was interrupted
		}
		names = append(names, n)
		if !freshName(n) {
			fresh = false
		}
	}
	if len(names) == 0 || fresh {
		return Absent, nil, nil
	}
	data, err := os.ReadFile(filepath.Join(dir, MarkerName))
	if err == nil {
		m, err := parseMarker(dir, data)
		if err != nil {
			return 0, nil, err
		}
		return Marked, m, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return 0, nil, fmt.Errorf("turnback: store %s: %w", dir, err)
	}
	if err := recognizeLegacy(ctx, dir, names); err != nil {
		return 0, nil, err
	}
	return Legacy, nil, nil
}

// parseMarker decodes the marker data of store dir. A marker that is not
// turnback's is model.ErrNotStore; a newer format is refused too.
func parseMarker(dir string, data []byte) (*Marker, error) {
	var m Marker
	if json.Unmarshal(data, &m) != nil || m.Format != markerFormat || m.Version < 1 {
		return nil, fmt.Errorf("%w: %s has a %s that is not turnback's; refusing to write there", model.ErrNotStore, dir, MarkerName)
	}
	if m.Version > FormatVersion {
		return nil, fmt.Errorf("turnback: store %s has format version %d; this turnback reads up to %d: upgrade turnback", dir, m.Version, FormatVersion)
	}
	return &m, nil
}

// recognizeLegacy accepts a store written by a turnback from before the
// marker: it has the "worktree" note (an absolute path), nothing but the
// files such a store holds, and a database that passes the checks that
// keep Badger from deleting anything and whose keys, if any, include
// turnback's metadata (m/...), read through a read-only open.
func recognizeLegacy(ctx context.Context, dir string, names []string) error {
	refuse := func(why string) error {
		return fmt.Errorf("%w: %s %s; refusing to write there (choose an empty or new directory for the store)", model.ErrNotStore, dir, why)
	}
	wt, ok := RecordedWorkTree(dir)
	if !ok || !filepath.IsAbs(wt) {
		return refuse(fmt.Sprintf("holds files turnback did not write (%s) and no %s", sampleNames(names), MarkerName))
	}
	for _, n := range names {
		if !legacyName(n) {
			return refuse(fmt.Sprintf("holds %q, which a turnback store does not", n))
		}
	}
	db := filepath.Join(dir, "db")
	if _, err := os.Stat(filepath.Join(db, "MANIFEST")); errors.Is(err, os.ErrNotExist) {
		// No database yet (or a damaged one, which the open refuses).
		return nil
	}
	b, err := cas.OpenBadger(ctx, db, cas.BadgerOptions{ReadOnly: true, LockWait: DefaultLockWait, Name: dir})
	if err != nil {
		if errors.Is(err, cas.ErrBusy) || errors.Is(err, cas.ErrDamaged) {
			return err
		}
		return fmt.Errorf("turnback: store %s: %w", dir, err)
	}
	defer b.Close()
	anyKey, ours := false, false
	stop := errors.New("stop")
	err = b.Scan(ctx, nil, true, func(k, _ []byte) error {
		anyKey = true
		if strings.HasPrefix(string(k), "m/") {
			ours = true
			return stop
		}
		return nil
	})
	if err != nil && !errors.Is(err, stop) {
		return fmt.Errorf("turnback: store %s: %w", dir, err)
	}
	if anyKey && !ours {
		return refuse("holds a database without turnback's records")
	}
	return nil
}

// freshName reports whether a store directory may hold a file of this
// name before its database is created: the watch daemon's log and
// socket, the note of an automatic start that failed, a hook's log (and
// the full one before it, hook.log.1), the
// API's bearer token (serve --print-token).
func freshName(n string) bool {
	switch n {
	case "watch.log", "watch.log.1", "watch.log.old", "watch.sock", "watch.failed", "hook.log", "hook.log.1", "api.token":
		return true
	}
	return false
}

// legacyName reports whether a store of an earlier turnback may hold a
// file of this name.
func legacyName(n string) bool {
	switch {
	case n == "db", n == WorkTreeNote, n == WorkTreeNote+".tmp", n == "hook.log.1":
		return true
	case strings.HasPrefix(n, "watch"), strings.HasPrefix(n, "journal"), strings.HasPrefix(n, "restore"),
		strings.HasPrefix(n, "daemon"), strings.HasSuffix(n, ".sock"), strings.HasSuffix(n, ".log"),
		strings.HasSuffix(n, ".tmp"), strings.HasSuffix(n, ".lock"), strings.HasPrefix(n, "."):
		return true
	}
	return false
}

func sampleNames(names []string) string {
	if len(names) > 3 {
		return strings.Join(names[:3], ", ") + ", ..."
	}
	return strings.Join(names, ", ")
}

// WriteMarker records dir as a store of workTree.
func WriteMarker(dir, workTree string) error {
	return writeMarker(dir, newMarker(workTree))
}

// MoveMarker records in the marker of store dir, if it has one, that its
// work tree is now workTree; the format version stays as it was.
func MoveMarker(ctx context.Context, dir, workTree string) error {
	state, m, err := Inspect(ctx, dir)
	if err != nil || state != Marked {
		return err
	}
	n := newMarker(workTree)
	n.Version = m.Version
	return writeMarker(dir, n)
}

// writeMarker writes m as the marker of store dir.
func writeMarker(dir string, m Marker) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	// A temporary name of its own: concurrent first commands each write
	// the same marker.
	f, err := os.CreateTemp(dir, MarkerName+".*.tmp")
	if err != nil {
		return fmt.Errorf("turnback: store %s: write %s: %w", dir, MarkerName, err)
	}
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, MarkerName))
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("turnback: store %s: write %s: %w", dir, MarkerName, err)
	}
	return nil
}

// newMarker returns the marker of a store of workTree.
func newMarker(workTree string) Marker {
	m := Marker{Format: markerFormat, Version: FormatVersion, WorkTree: workTree}
	if !utf8.ValidString(workTree) {
		m.WorkTreeBytes = []byte(workTree)
	}
	return m
}

// MarkedWorkTree returns the work tree the marker in dir records, exactly,
// without the other checks of Inspect.
func MarkedWorkTree(dir string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(dir, MarkerName))
	if err != nil {
		return "", false
	}
	m, err := parseMarker(dir, data)
	if err != nil || m.ExactWorkTree() == "" {
		return "", false
	}
	return m.ExactWorkTree(), true
}
