package daemon

// The registry: while it listens, every daemon keeps a note of itself
// in the per-user socket directory (SocketDir), so that a listing finds
// each daemon, wherever its store is, by asking the socket the note
// names; no look at the system's process table. A note whose process is
// gone (killed outright) is removed by the next listing.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// NoteExt ends the name of a daemon's note: its pid, then NoteExt.
const NoteExt = ".daemon"

// Note is what a daemon says of itself in the registry. Paths are
// carried byte for byte (JSON base64), whatever they hold.
type Note struct {
	PID int `json:"pid"`
	// Ticks is the process's start time in clock ticks since boot
	// (Linux; 0 elsewhere): with the pid, its identity.
	Ticks    uint64    `json:"ticks,omitempty"`
	Since    time.Time `json:"since"`
	WorkTree []byte    `json:"work_tree"`
	Store    []byte    `json:"store"`
	Socket   []byte    `json:"socket"`
}

func NotePath(pid int) string { return filepath.Join(SocketDir(), strconv.Itoa(pid)+NoteExt) }

// Notes returns the daemons the registry notes. The notes of processes
// that are gone are removed; those whose identity cannot be checked
// (Ticks 0) are returned as they are.
func Notes() ([]Note, error) {
	dir := SocketDir()
	if err := CheckSocketDir(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("daemon: registry: %w", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("daemon: registry: %w", err)
	}
	var out []Note
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), NoteExt)
		pid, err := strconv.Atoi(name)
		if !ok || err != nil || !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		var n Note
		if json.Unmarshal(data, &n) != nil || n.PID != pid {
			continue
		}
		if !ProcAlive(n.PID, n.Ticks) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
			continue
		}
		out = append(out, n)
	}
	return out, nil
}
