//go:build unix

package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	wd "github.com/turnback/turnback/watch/daemon"
)

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// TestRegistry: a listening daemon notes itself in the per-user socket
// directory, its paths byte for byte; a listing (wd.Notes) finds it and
// asks its socket; the note goes when the daemon stops, and notes of
// processes that are gone (or, where start times are known, of another
// process given the pid) are removed by the next listing.
func TestRegistry(t *testing.T) {
	tmp, err := os.MkdirTemp("", "reg") // short: socket paths are bounded
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	t.Setenv("TMPDIR", tmp)
	wt := filepath.Join(tmp, "a folder\nwith a newline")
	store := filepath.Join(tmp, "st")
	for _, d := range []string{wt, store} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// What a store has (the daemon checks its store is still there).
	if err := os.MkdirAll(filepath.Join(store, "db"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(store, "db", "MANIFEST"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if notes, err := wd.Notes(); err != nil || len(notes) != 0 {
		t.Fatalf("no registry yet: %v, %v", notes, err)
	}
	d := NewServer(ServerConfig{WorkTree: wt, StoreDir: store, Store: nopCloser{}})
	if err := d.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- d.Serve(context.Background()) }()

	// Stale notes: a process that is gone; this process's pid with
	// another start time; not notes at all.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	stale := map[string]wd.Note{
		strconv.Itoa(gone.Process.Pid) + wd.NoteExt: {PID: gone.Process.Pid, Store: []byte("/nowhere")},
	}
	if wd.ProcsSupported {
		stale["1"+wd.NoteExt] = wd.Note{PID: 1, Ticks: wd.SelfTicks() + 12345, Store: []byte("/elsewhere")}
	}
	for name, n := range stale {
		data, _ := json.Marshal(n)
		if err := os.WriteFile(filepath.Join(wd.SocketDir(), name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{"junk.daemon": "{", "7.daemon": `{"pid":8}`, "notes.txt": "x"} {
		if err := os.WriteFile(filepath.Join(wd.SocketDir(), name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	notes, err := wd.Notes()
	if err != nil || len(notes) != 1 {
		t.Fatalf("Notes: %+v, %v; want this daemon's alone", notes, err)
	}
	n := notes[0]
	if n.PID != os.Getpid() || n.Ticks != wd.SelfTicks() || !bytes.Equal(n.WorkTree, []byte(wt)) || !bytes.Equal(n.Store, []byte(store)) ||
		string(n.Socket) != d.Socket() || time.Since(n.Since) > time.Minute {
		t.Fatalf("the note: %+v", n)
	}
	info, ok := wd.PingSocket(string(n.Socket), 5*time.Second)
	if !ok || info.PID != os.Getpid() || info.Store != store {
		t.Fatalf("the noted socket answers %+v, %v", info, ok)
	}
	for name := range stale {
		if _, err := os.Lstat(filepath.Join(wd.SocketDir(), name)); !os.IsNotExist(err) {
			t.Errorf("stale note %s is still there: %v", name, err)
		}
	}

	d.Stop("test", false)
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if notes, err := wd.Notes(); err != nil || len(notes) != 0 {
		t.Fatalf("after the stop: %+v, %v", notes, err)
	}
	if _, err := os.Lstat(wd.NotePath(os.Getpid())); !os.IsNotExist(err) {
		t.Errorf("the daemon's note is still there: %v", err)
	}
}
