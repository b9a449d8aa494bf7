package daemon

// A serving daemon's note in the registry (package watch/daemon reads
// the notes: Notes).

import (
	"encoding/json"
	"fmt"
	"os"

	wd "github.com/turnback/turnback/watch/daemon"
)

// writeNote notes the daemon in the registry.
func (d *Server) writeNote() error {
	dir := wd.SocketDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("daemon: registry: %w", err)
	}
	if err := wd.CheckSocketDir(dir); err != nil {
		return fmt.Errorf("daemon: registry: %w", err)
	}
	n := wd.Note{PID: os.Getpid(), Ticks: wd.SelfTicks(), Since: d.since, WorkTree: []byte(d.c.WorkTree), Store: []byte(d.c.StoreDir),
		Socket: []byte(d.sock)}
	data, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("daemon: registry: %w", err)
	}
	p := wd.NotePath(n.PID)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("daemon: registry: %w", err)
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("daemon: registry: %w", err)
	}
	d.noted = true
	return nil
}

// removeNote takes the daemon's note out of the registry.
func (d *Server) removeNote() {
	if d.noted {
		_ = os.Remove(wd.NotePath(os.Getpid()))
	}
}
