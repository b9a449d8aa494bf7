//go:build linux

package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// tbStats is what the results keep of a capture's stats.
func tbStats(st map[string]any) map[string]any {
	info := map[string]any{}
	for _, k := range []string{"files", "dirs", "bytes", "hashed_files", "hashed_bytes", "new_blobs", "new_bytes"} {
		if v, ok := st[k]; ok {
			info[k] = v
		}
	}
	if u, ok := st["uncaptured"].([]any); ok {
		info["uncaptured"] = len(u)
	}
	return info
}

// snapDoc is what snap and end print with --json.
type snapDoc struct {
	Snapshot string         `json:"snapshot"`
	Turn     int            `json:"turn"`
	Files    int64          `json:"files"`
	Message  string         `json:"message"`
	Stats    map[string]any `json:"stats"`
}

// parseSnapDoc reads the --json document of snap or end.
func parseSnapDoc(out []byte, cmd, phase string) (*snapDoc, error) {
	var doc snapDoc
	if err := json.Unmarshal(out, &doc); err != nil {
		return nil, fmt.Errorf("turnback %s: bad JSON: %v", cmd, err)
	}
	if doc.Snapshot == "" {
		return nil, fmt.Errorf("turnback %s recorded no snapshot: %s", cmd, doc.Message)
	}
	if phase == PhaseTurn && doc.Message != "" {
		return nil, fmt.Errorf("turnback end: %s", doc.Message)
	}
	return &doc, nil
}

// readSnap reads the --json document of snap or end that p printed and
// records its stats and snapshot in op.
func readSnap(op *Op, p *procRun, cmd, phase string) (*snapDoc, error) {
	doc, err := parseSnapDoc(p.stdout.Bytes(), cmd, phase)
	if err != nil {
		return nil, err
	}
	mergeInfo(op, tbStats(doc.Stats))
	op.Info["snapshot"] = doc.Snapshot
	return doc, nil
}

// checkUndoDoc reads the --json document of undo into op.Info.
func checkUndoDoc(op *Op, out []byte) error {
	var doc struct {
		Turns         int      `json:"turns"`
		Restored      []string `json:"restored"`
		Deleted       []string `json:"deleted"`
		Created       []string `json:"created"`
		Conflicts     []string `json:"conflicts"`
		NotRestorable []string `json:"not_restorable"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return fmt.Errorf("turnback undo: bad JSON: %v", err)
	}
	mergeInfo(op, undoInfo(doc.Turns, len(doc.Restored), len(doc.Deleted), len(doc.Created), len(doc.NotRestorable)))
	if doc.Turns != 1 {
		return fmt.Errorf("turnback undo undid %d turns, want 1", doc.Turns)
	}
	return nil
}

// undoInfo is what the results keep of an undo.
func undoInfo(turns, restored, deleted, created, notRestorable int) map[string]any {
	return map[string]any{"turns": turns, "restored": restored, "deleted": deleted, "created": created, "not_restorable": notRestorable}
}

// statusDoc is what `watch --status --json` prints: the daemon's info, or
// running false.
type statusDoc struct {
	PID      int   `json:"pid"` // 0: no daemon serves the folder
	Requests int64 `json:"requests"`
	Ready    bool  `json:"ready"`
}

// watchStatus asks, untimed, whether a daemon serves the folder (`watch
// --status`, which starts none).
func (e *NoWatchCLI) watchStatus(ctx context.Context) (statusDoc, error) {
	var d statusDoc
	var p procRun
	if err := p.run(e.cmd(ctx, "watch", "--status")); err != nil {
		return d, err
	}
	if err := json.Unmarshal(p.stdout.Bytes(), &d); err != nil {
		return d, fmt.Errorf("turnback watch --status: bad JSON %q: %v", strings.TrimSpace(p.stdout.String()), err)
	}
	return d, nil
}
