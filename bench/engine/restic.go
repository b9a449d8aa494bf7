//go:build linux

package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Restic is restic (engine restic): capture is `backup --parent
// <previous>` (plus `init` when cold), undo `restore <before>:TREE
// --target TREE` (`--delete` from restic 0.17).
type Restic struct {
	repo, tree, cache string
	env               []string
	last, before      string
	canDelete         bool
	version           string
}

// NewRestic is the restic engine.
func NewRestic() *Restic { return &Restic{} }

// Version is what `restic version` said (known once Available ran).
func (e *Restic) Version() string { return e.version }

func (e *Restic) Name() string { return "restic" }
func (e *Restic) Available() (bool, string) {
	if _, err := exec.LookPath("restic"); err != nil {
		return false, "restic not on PATH"
	}
	out, err := exec.Command("restic", "version").Output()
	if err != nil {
		return false, "restic version: " + err.Error()
	}
	e.version = strings.TrimSpace(string(out))
	if m := regexp.MustCompile(`restic (\d+)\.(\d+)`).FindStringSubmatch(e.version); m != nil {
		maj, _ := strconv.Atoi(m[1])
		mn, _ := strconv.Atoi(m[2])
		e.canDelete = maj > 0 || mn >= 17 // restore --delete appeared in 0.17
	}
	return true, ""
}
func (e *Restic) Setup(name, dir, work string) error {
	e.tree, e.repo, e.cache = dir, filepath.Join(work, "restic-repo"), filepath.Join(work, "restic-cache")
	e.env = append(CleanEnv(), "RESTIC_PASSWORD=turnback-bench", "RESTIC_REPOSITORY="+e.repo, "RESTIC_CACHE_DIR="+e.cache)
	return nil
}
func (e *Restic) Fresh() error {
	e.last, e.before = "", ""
	os.RemoveAll(e.cache)
	return os.RemoveAll(e.repo)
}
func (e *Restic) StoreDir() string { return e.repo }
func (e *Restic) Close() error     { return nil }

func (e *Restic) cmd(ctx context.Context, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, "restic", args...)
	c.Env, c.Dir = e.env, e.tree
	return c
}

func (e *Restic) Capture(ctx context.Context, phase string, rep int) (Op, error) {
	p := startOp()
	err := func() error {
		if phase == PhaseCold {
			if err := p.run(e.cmd(ctx, "init")); err != nil {
				return err
			}
		}
		args := []string{"backup", "--json", "--quiet"}
		if e.last != "" {
			args = append(args, "--parent", e.last)
		}
		return p.run(e.cmd(ctx, append(args, e.tree)...))
	}()
	op := p.finish()
	if err != nil {
		return op, err
	}
	id := ""
	for _, line := range strings.Split(p.stdout.String(), "\n") {
		var d struct {
			MessageType string `json:"message_type"`
			SnapshotID  string `json:"snapshot_id"`
		}
		if json.Unmarshal([]byte(line), &d) == nil && d.MessageType == "summary" {
			id = d.SnapshotID
		}
	}
	if id == "" {
		return op, fmt.Errorf("restic backup: no snapshot id in output")
	}
	e.last = id
	if phase == PhaseBefore {
		e.before = id
	}
	mergeInfo(&op, map[string]any{"snapshot": id})
	return op, nil
}

func (e *Restic) Undo(ctx context.Context, rep int) (Op, error) {
	args := []string{"restore", e.before + ":" + e.tree, "--target", e.tree}
	if e.canDelete {
		args = append(args, "--delete")
	}
	op, _, err := oneCommand(e.cmd(ctx, args...))
	return op, err
}
