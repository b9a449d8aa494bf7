package cli

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/testtier"
)

// TestRaceEditsDuringRestores is the promise that an edit made while an
// undo, redo or restore runs is never lost, through the binary, with and
// without a watch daemon: a goroutine rewrites random files of a 60-file
// turn at random moments while 110 undos, redos and restores per mode run
// (30 in the fast tier), with and without --force. After each command,
// the last edit of every path it touched must still be in its file, or
// else in the checkpoint the command printed (read back from the store
// at the end), and a command that reported a conflict must have left
// every edit in place.
//
// The editor writes the way editors that save atomically do (a complete
// file renamed over the path), so an edit is one instant: before or after
// the command's look at the path. (A write through a descriptor opened
// before the replacement and made after it can still go to the displaced
// file: restore/doc.go, "What remains".)
func TestRaceEditsDuringRestores(t *testing.T) {
	t.Parallel()
	commands := 110
	if testtier.Short() {
		commands = 15 // each kind and a conflict in every run seen
	}
	for _, daemon := range []bool{false, true} {
		name := "cli"
		if daemon {
			name = "daemon"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			raceRun(t, daemon, commands, 60)
		})
	}
}

type raceEdit struct {
	path, data string
}

type racePending struct {
	cmd        string
	checkpoint string
	path, data string
}

func raceRun(t *testing.T, daemon bool, commands, files int) {
	e := newUndoEnv(t)
	e.shortXDG()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	name := func(i int) string { return fmt.Sprintf("d%d/f%03d.txt", i%4, i) }
	for d := 0; d < 4; d++ {
		e.mkdir(fmt.Sprintf("d%d", d))
	}
	for i := 0; i < files; i++ {
		e.write(name(i), fmt.Sprintf("before %d\n%s", i, strings.Repeat("x", 200)))
	}
	before := e.snapID("snap")
	for i := 0; i < files; i++ {
		e.write(name(i), fmt.Sprintf("after %d\n%s", i, strings.Repeat("y", 300)))
	}
	after := e.snapID("end")
	if daemon {
		e.startWatchDaemon()
	}
	tmp := filepath.Join(filepath.Dir(e.dir), "editor")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	undone := false
	var pending []racePending
	counts := map[string]int{}
	edits, inFile := 0, 0
	for c := 0; c < commands; c++ {
		var args []string
		force := rng.IntN(3) != 0
		switch k := rng.IntN(10); {
		case k < 2 || c == 0: // the first is a restore: every run has one
			id := before
			if rng.IntN(2) == 0 {
				id = after
			}
			args = []string{"restore", id[:12]}
		case undone:
			args = []string{"redo"}
		default:
			args = []string{"undo"}
		}
		if force && args[0] != "restore" {
			args = append(args, "--force")
		}
		// The editor: a rewrite every 0-40 ms while the command runs.
		stop := make(chan struct{})
		var mu sync.Mutex
		var made []raceEdit
		var wg sync.WaitGroup
		erng := rand.New(rand.NewPCG(rng.Uint64(), uint64(c)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				case <-time.After(time.Duration(erng.IntN(40)) * time.Millisecond):
				}
				p := name(erng.IntN(files))
				data := fmt.Sprintf("USER edit %d of command %d\n", k, c)
				tf := filepath.Join(tmp, fmt.Sprintf("e%d-%d", c, k))
				if err := os.WriteFile(tf, []byte(data), 0o644); err != nil {
					t.Error(err)
					return
				}
				if err := os.Rename(tf, e.path(p)); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				made = append(made, raceEdit{p, data})
				mu.Unlock()
			}
		}()
		r := e.run(append([]string{"--json"}, args...)...)
		close(stop)
		wg.Wait()
		var doc struct {
			Checkpoint string   `json:"checkpoint"`
			Conflicts  []string `json:"conflicts"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("command %d: %v\n%v", c, err, r)
		}
		switch {
		case r.code == 3 && !force && args[0] != "restore":
			counts["conflict"]++
		case r.code == 0:
			counts[args[0]]++
			switch args[0] {
			case "undo":
				undone = true
			case "redo":
				undone = false
			}
		default:
			t.Fatalf("command %d: unexpected exit\n%v", c, r)
		}
		last := map[string]string{}
		for _, ed := range made {
			last[ed.path] = ed.data
		}
		edits += len(last)
		for p, data := range last {
			got, err := os.ReadFile(e.path(p))
			if err == nil && string(got) == data {
				inFile++
				continue
			}
			if r.code == 3 {
				t.Errorf("command %d (%s) reported a conflict, yet the edit of %s is gone (now %q)", c, strings.Join(args, " "), p, got)
				continue
			}
			pending = append(pending, racePending{strings.Join(args, " "), doc.Checkpoint, p, data})
		}
	}
	if daemon {
		e.run("watch", "--stop")
	}
	// Read the checkpoints back.
	stores, err := filepath.Glob(filepath.Join(e.xdg, "turnback", "*"))
	if err != nil || len(stores) != 1 {
		t.Fatalf("stores: %v %v", stores, err)
	}
	ctx := t.Context()
	repo, err := turnback.Open(ctx, e.dir, turnback.Options{Store: stores[0], LockWait: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	inCheckpoint := 0
	diffs := map[string]map[string][]byte{}
	for _, p := range pending {
		d, ok := diffs[p.checkpoint]
		if !ok {
			_, _, fds, err := repo.Diff(ctx, p.checkpoint, after)
			if err != nil {
				t.Fatalf("diff %s %s: %v", p.checkpoint, after, err)
			}
			d = map[string][]byte{}
			for _, fd := range fds {
				d[fd.Path] = fd.OldData
			}
			diffs[p.checkpoint] = d
		}
		if string(d[p.path]) != p.data {
			t.Errorf("LOST: the edit %q of %s made during %q is neither in the file nor in its checkpoint %s (which has %q)",
				strings.TrimSpace(p.data), p.path, p.cmd, p.checkpoint, d[p.path])
			continue
		}
		inCheckpoint++
	}
	t.Logf("%d commands %v; %d edits checked: %d still in their file, %d in the checkpoint printed", commands, counts, edits, inFile, inCheckpoint)
	if edits == 0 || inCheckpoint == 0 {
		t.Errorf("the test exercised nothing: %d edits, %d found in a checkpoint", edits, inCheckpoint)
	}
}

// startWatchDaemon starts a watch daemon on the env's work tree, stopped when the
// test ends.
func (e *cliEnv) startWatchDaemon() {
	e.t.Helper()
	r := e.ok("watch", "--detach", "--idle-timeout", "10m")
	if !strings.HasPrefix(r.stdout, "watching ") {
		e.t.Fatalf("watch --detach printed %q", r.stdout)
	}
	e.t.Cleanup(func() { e.run("watch", "--stop") })
}

// shortXDG moves the env's data directory (hence its store) to a short
// path: the daemon's socket lives beside the store, and a unix socket
// path has at most 107 bytes. Call it before the first command.
func (e *cliEnv) shortXDG() {
	e.t.Helper()
	xdg, err := os.MkdirTemp("", "tbx")
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { os.RemoveAll(xdg) })
	e.xdg = xdg
}
