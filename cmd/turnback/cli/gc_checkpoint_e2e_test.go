package cli

// gc keeps what was promised: a checkpoint an undo, redo or restore
// printed as the way back lives as long as the turns around it.

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

type gcCheckpointDoc struct {
	ID      string `json:"id"`
	Session string `json:"session"`
	Turn    int    `json:"turn"`
}

type gcCheckpointsDoc struct {
	DryRun      bool              `json:"dry_run"`
	Checkpoints []gcCheckpointDoc `json:"checkpoints_forgotten"`
}

func (e *cliEnv) gcCheckpointsJSON(args ...string) gcCheckpointsDoc {
	e.t.Helper()
	r := e.ok(append([]string{"--json", "gc"}, args...)...)
	var doc gcCheckpointsDoc
	cliOneJSON(e.t, r.stdout, &doc)
	if doc.Checkpoints == nil {
		e.t.Fatalf("gc --json: checkpoints_forgotten missing or null:\n%s", r.stdout)
	}
	return doc
}

// gcUndoCheckpoint runs "--json undo" with extra args and returns the
// checkpoint it printed.
func (e *cliEnv) gcUndoCheckpoint(args ...string) string {
	e.t.Helper()
	r := e.ok(append([]string{"--json", "undo"}, args...)...)
	var doc struct {
		Checkpoint string `json:"checkpoint"`
	}
	cliOneJSON(e.t, r.stdout, &doc)
	if len(doc.Checkpoint) != 64 {
		e.t.Fatalf("undo printed checkpoint %q; want a full id\n%v", doc.Checkpoint, r)
	}
	return doc.Checkpoint
}

// gcForcedCheckpoint records turn 1 on f.bin, edits it as a user would,
// and undoes the turn with --force: the user's edit is in checkpoint C1,
// returned with the edit. Then one more turn is recorded and undone.
func (e *cliEnv) gcForcedCheckpoint() (c1 string, edit []byte) {
	e.t.Helper()
	e.writeBytes("f.bin", []byte("before the turn\n"))
	e.ok("snap", "-m", "turn 1")
	e.writeBytes("f.bin", []byte("the agent's version\n"))
	e.ok("end")
	edit = append([]byte("the user's edit \x00\xff\xfe\r\n"), gcRandom(7, 4096)...)
	e.writeBytes("f.bin", edit)
	if r := e.run("undo"); r.code != exitConflict {
		e.t.Fatalf("undo over the user's edit: want exit 3\n%v", r)
	}
	c1 = e.gcUndoCheckpoint("--force")
	if got := e.read("f.bin"); string(got) != "before the turn\n" {
		e.t.Fatalf("after undo --force f.bin is %q", got)
	}
	e.ok("snap", "-m", "turn 2")
	e.writeBytes("g.txt", []byte("turn 2\n"))
	e.ok("end")
	e.gcUndoCheckpoint()
	return c1, edit
}

// TestGCKeepsForcedCheckpoint: the checkpoint holding a user's edit that
// undo --force overwrote survives a plain gc after another turn and
// undo, and restore brings the edit back byte for byte.
func TestGCKeepsForcedCheckpoint(t *testing.T) {
	t.Parallel()
	e := newInProcessEnv(t)
	c1, edit := e.gcForcedCheckpoint()
	if dry := e.gcCheckpointsJSON("--dry-run"); len(dry.Checkpoints) != 0 {
		t.Errorf("gc --dry-run would drop checkpoints %+v; want none", dry.Checkpoints)
	}
	r := e.ok("gc")
	if strings.Contains(r.stdout, "checkpoint") {
		t.Errorf("plain gc reports dropping a checkpoint:\n%s", r.stdout)
	}
	e.ok("restore", c1[:12])
	if got := e.read("f.bin"); !bytes.Equal(got, edit) {
		t.Fatalf("restore %s after gc: f.bin is %q; want the user's edit %q", c1[:12], got, edit)
	}
	e.verify()
}

// TestGCDropsCheckpointWithItsTurns: once retention forgets the turns
// after a checkpoint, the checkpoint goes too, and gc --dry-run lists it
// first (JSON and human output); the newest checkpoint stays.
func TestGCDropsCheckpointWithItsTurns(t *testing.T) {
	t.Parallel()
	e := newInProcessEnv(t)
	c1, _ := e.gcForcedCheckpoint()
	for i := 3; i <= 5; i++ {
		e.ok("snap", "-m", fmt.Sprintf("turn %d", i))
		e.writeBytes("g.txt", []byte(fmt.Sprint(i)))
		e.ok("end")
	}
	// Turn 2 (the one after C1) went with the redo stack; --keep 1
	// forgets turns 3 and 4, so C1 goes. C2 (after turn 2) would go too,
	// but it is the newest checkpoint.
	dry := e.gcCheckpointsJSON("--dry-run", "--keep", "1")
	if len(dry.Checkpoints) != 1 || dry.Checkpoints[0].ID != c1 || dry.Checkpoints[0].Session != "default" || dry.Checkpoints[0].Turn != 1 {
		t.Fatalf("gc --dry-run --keep 1 lists checkpoints %+v; want only C1 %s (session default, after turn 1)", dry.Checkpoints, c1)
	}
	r := e.ok("gc", "--dry-run", "--keep", "1")
	if want := "would remove checkpoint " + c1[:12] + " (session default, after turn 1, "; !strings.Contains(r.stdout, want) {
		t.Errorf("gc --dry-run --keep 1 prints:\n%s\nwant a line with %q", r.stdout, want)
	}
	e.ok("show", c1[:12]) // the dry run dropped nothing
	res := e.gcCheckpointsJSON("--keep", "1")
	if len(res.Checkpoints) < 1 || res.Checkpoints[0].ID != c1 {
		t.Fatalf("gc --keep 1 dropped checkpoints %+v; want C1 %s first", res.Checkpoints, c1)
	}
	if r := e.run("restore", c1[:12]); r.code != exitError || !strings.Contains(r.stderr, "unknown snapshot id") {
		t.Errorf("restore C1 after its turns were forgotten: want exit 1, unknown snapshot id\n%v", r)
	}
	e.verify()
}

// TestGCDropsOldCheckpoints: a checkpoint older than --older-than goes,
// as turns that old do; the newest checkpoint stays, as the newest turn
// does.
func TestGCDropsOldCheckpoints(t *testing.T) {
	t.Parallel()
	e := newInProcessEnv(t)
	c1, _ := e.gcForcedCheckpoint()
	if res := e.gcCheckpointsJSON("--older-than", "1h"); len(res.Checkpoints) != 0 {
		t.Fatalf("gc --older-than 1h dropped young checkpoints %+v", res.Checkpoints)
	}
	time.Sleep(1200 * time.Millisecond)
	res := e.gcCheckpointsJSON("--older-than", "1s")
	if len(res.Checkpoints) != 1 || res.Checkpoints[0].ID != c1 {
		t.Fatalf("gc --older-than 1s after 1.2s dropped %+v; want only C1 %s (C2 is the newest)", res.Checkpoints, c1)
	}
	e.verify()
}
