//go:build linux

package engine

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// Op is one measured operation.
type Op struct {
	Dur      time.Duration
	MaxRSSKB int64          // peak RSS of the largest process (0: in-process)
	CPU      time.Duration  // CPU time (user+sys) the operation itself used
	Foreign  float64        // share of the machine's CPU others used meanwhile
	Procs    int            // processes started
	Info     map[string]any // engine details (files read, ids, ...)
}

// Engine is one way of capturing a tree and undoing a turn.
type Engine interface {
	Name() string
	// Available says whether the engine can run here (and why not).
	Available() (bool, string)
	// Setup binds the engine to the tree name in dir; work is a scratch
	// directory of its own, outside the tree.
	Setup(name, dir, work string) error
	// Fresh deletes the store: the next capture is a cold one.
	Fresh() error
	// Capture captures the tree. phase is cold (into an empty store),
	// nochange, before (the turn's before-state) or turn (its after-state).
	Capture(ctx context.Context, phase string, rep int) (Op, error)
	// Undo brings the tree back to the before-state of the last turn.
	Undo(ctx context.Context, rep int) (Op, error)
	StoreDir() string
	Close() error
}

// Phases of a capture.
const (
	PhaseCold     = "cold"
	PhaseNoChange = "nochange"
	PhaseBefore   = "before"
	PhaseTurn     = "turn"
)

// Logf reports progress; the harness sets it.
var Logf = func(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
}

// Sanitize makes s usable as a file name.
func Sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ':' || r == ' ' {
			return '_'
		}
		return r
	}, s)
}

func mergeInfo(op *Op, m map[string]any) {
	if op.Info == nil {
		op.Info = map[string]any{}
	}
	for k, v := range m {
		op.Info[k] = v
	}
}
