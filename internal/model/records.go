package model

// The store's session record, and the keys of the records a copy of a
// session elsewhere carries. The root package reads and writes them
// (its records.go); internal/exchange carries them to a remote.

import (
	"fmt"
	"time"

	"github.com/turnback/turnback/cas"
)

// Record keys.
const (
	KeyLatest        = "m/latest" // hex id of the newest recorded snapshot, any session
	PrefixSnap       = "m/snap/"  // + hex id -> snapshot record
	PrefixSess       = "m/sess/"  // + session name -> SessionRecord
	PrefixTurn       = "m/turn/"  // + session + "/" + %012d -> Turn
	PrefixCheckpoint = "m/cp/"    // + hex id -> checkpoint record
	TurnNumFmt       = "%012d"
)

// TurnKey is the key of turn n of session.
func TurnKey(session string, n int) []byte {
	return []byte(PrefixTurn + session + "/" + fmt.Sprintf(TurnNumFmt, n))
}

// SnapKey is the key of state h's snapshot record.
func SnapKey(h cas.Hash) []byte { return []byte(PrefixSnap + h.String()) }

// CheckpointKey is the key of checkpoint h's record.
func CheckpointKey(h cas.Hash) []byte { return []byte(PrefixCheckpoint + h.String()) }

// SessionRecord is one session's stacks.
type SessionRecord struct {
	Version  int    `json:"v"`
	Name     string `json:"name"`
	NextTurn int    `json:"next_turn"`
	// Turns is the undo stack, oldest first; the last one may be open.
	Turns []int `json:"turns"`
	// Redo holds the undos that can be redone, the most recent last.
	Redo []UndoGroup `json:"redo,omitempty"`
	// Last is the newest state the session recorded (snap, end, undo,
	// redo), what status and diff compare with.
	Last string `json:"last,omitempty"`
	// Forgotten is the highest turn number retention has forgotten
	// (0: none); checkpoints made before it go with those turns.
	Forgotten int `json:"forgotten,omitempty"`
	// Agent names the agent whose hook recorded the session's first turn
	// (Options.Agent); absent for none and in stores written before it.
	Agent string `json:"agent,omitempty"`
	// RedoCleared is when a turn that changed the folder (RedoClearedBy)
	// replaced the redo stack, started a new timeline; zero if never.
	RedoCleared   time.Time `json:"redo_cleared,omitzero"`
	RedoClearedBy int       `json:"redo_cleared_by,omitempty"`
	// Rev names this version of the record: every write gives it a new
	// random one and appends the one before to Revs (the last maxRevs,
	// oldest first). A pull compares them to tell which of two records
	// came from the other (internal/exchange). Absent in stores written before.
	Rev  string   `json:"rev,omitempty"`
	Revs []string `json:"revs,omitempty"`
	// Dropped is the number of the session's latest closed turn when
	// it changed nothing and was dropped (0: the latest was kept, or an
	// undo has since said so): the next undo names the turn it undoes.
	Dropped int `json:"dropped,omitempty"`
}

// UndoGroup is one undo on a session's redo stack: a whole undo (Turns)
// or a partial one (Partial and Paths).
type UndoGroup struct {
	Turns      []int  `json:"turns"`      // undone turns still to redo, oldest first
	Checkpoint string `json:"checkpoint"` // the state the undo replaced
	Expected   string `json:"expected"`   // the state the last undo or redo left
	// A partial undo (UndoOptions.Paths): Turns is empty, the turns it
	// reverted paths of (Partial) stayed on the undo stack, and Paths
	// are the paths given (clean, relative to the work tree). Its redo
	// puts every path that differs between Expected and Checkpoint
	// back to what Checkpoint holds: exactly the paths the undo changed.
	Partial []int    `json:"partial,omitempty"`
	Paths   []string `json:"paths,omitempty"`
}

// IsPartial reports whether g is a partial undo.
func (g *UndoGroup) IsPartial() bool { return len(g.Partial) > 0 }

// AllTurns returns the numbers of s's turns: done, then undone.
func (s *SessionRecord) AllTurns() []int {
	nums := append([]int(nil), s.Turns...)
	for _, g := range s.Redo {
		nums = append(nums, g.Turns...)
	}
	return nums
}
