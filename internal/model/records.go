package model

// The store's metadata records: their keys, their types and how each
// is encoded into a cas.Entry. Records are small JSON documents written
// in one transaction per command, after every blob and tree they refer
// to is flushed, so a crash leaves at most unreferenced blobs behind.
// The root package reads and writes them (its records.go);
// internal/exchange carries a session's to a remote.

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/walker"
	"github.com/turnback/turnback/walker/ignore"
)

// MetaVersion is the version every record is written with.
const MetaVersion = 1

// Record keys.
const (
	KeyLatest        = "m/latest"  // hex id of the newest recorded snapshot, any session
	PrefixSnap       = "m/snap/"   // + hex id -> SnapshotRecord
	PrefixSess       = "m/sess/"   // + session name -> SessionRecord
	PrefixTurn       = "m/turn/"   // + session + "/" + %012d -> Turn
	PrefixCheckpoint = "m/cp/"     // + hex id -> CheckpointRecord
	PrefixNotice     = "m/notice/" // + session name -> Notice
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
	// random one and appends the one before to Revs (the last MaxRevs,
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

// MaxRevs bounds SessionRecord.Revs.
const MaxRevs = 32

// EncodeJSON is v in JSON, for the plain structs records are.
func EncodeJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		// Only plain structs are marshalled here; this cannot fail.
		return []byte("{}")
	}
	return data
}

// TurnEntry is the record of turn t; it sets t's Version and ids.
func TurnEntry(t *Turn) cas.Entry {
	t.Version = MetaVersion
	t.BeforeID = t.Before.String()
	t.AfterID = ""
	if !t.Open() {
		t.AfterID = t.After.String()
	}
	return cas.Entry{Key: TurnKey(t.Session, t.N), Value: EncodeJSON(t)}
}

// SessionEntry is the record of session s; it gives s a new Rev and
// keeps the one before in Revs.
func SessionEntry(s *SessionRecord) cas.Entry {
	s.Version = MetaVersion
	if s.Rev != "" {
		s.Revs = append(s.Revs, s.Rev)
		if len(s.Revs) > MaxRevs {
			s.Revs = append([]string(nil), s.Revs[len(s.Revs)-MaxRevs:]...)
		}
	}
	s.Rev = rand.Text()[:16]
	return cas.Entry{Key: []byte(PrefixSess + s.Name), Value: EncodeJSON(s)}
}

// SnapshotRecord registers a snapshot so ids can be listed, resolved by
// prefix and kept by gc. Captures of one tree share it: a write merges
// their skips (MergeSnapshot).
type SnapshotRecord struct {
	Version int       `json:"v"`
	Kind    string    `json:"kind"` // "snap" (snap, end) or "checkpoint" / "result" (undo, redo, restore)
	Time    time.Time `json:"time"`
	Files   int64     `json:"files"`
	Bytes   int64     `json:"bytes"`
	// Rules is SkipRules for a snapshot whose capture judged directories
	// by evidence; then Generated lists the directories it skipped for
	// what they held (walker.Ignored of rule "evidence"). 0: recorded
	// before, or for a state whose skips are unknown.
	Rules     int      `json:"rules,omitempty"`
	Generated []string `json:"generated,omitempty"`
	// RuleBlobs: the ignore files the capture applied but skipped, being
	// ignored themselves (a .gitignore lists .ignore), by path, with
	// the hex hash of the blob of what it read of each. No tree holds
	// them (SkipInfo.RuleBlobs); gc, verify, push and pull take the
	// blobs with the state.
	RuleBlobs map[string]string `json:"rule_blobs,omitempty"`
	// RulesUnknown: the directories an ignore file of which the capture
	// skipped without keeping its rules (SkipInfo.RulesUnknown).
	RulesUnknown []string `json:"rules_unknown,omitempty"`
	// RuleFiles: records written before RuleBlobs held the content
	// inline. Read, never written.
	RuleFiles map[string][]byte `json:"rule_files,omitempty"`
	// Foreign: a pull brought the state, which another machine
	// captured; its owners are that machine's (the root's pull_owners.go).
	Foreign bool `json:"foreign,omitempty"`
	// Partial: the state of an undo or redo (its checkpoint or result)
	// vouches only for Paths, the paths that command could write, as
	// they were; elsewhere it holds an earlier capture's content, which
	// may be older than the folder was. Restore puts back Paths alone.
	// Absent: the state is the whole folder's.
	Partial bool     `json:"partial,omitempty"`
	Paths   []string `json:"paths,omitempty"`
	// TrackedIgnored: what git tracked that an ignore file's pattern
	// or a built-in name ignores and the state lacks
	// (SkipInfo.TrackedIgnored).
	TrackedIgnored []string `json:"tracked_ignored,omitempty"`
}

// Kinds of snapshot record.
const (
	KindSnap       = "snap"
	KindCheckpoint = "checkpoint"
	KindResult     = "result"
)

// SkipRules is SnapshotRecord.Rules of a snapshot captured under the
// rules that judge a directory by what it holds (CACHEDIR.TAG, ...).
const SkipRules = 2

// SkipInfo is what a state's capture skipped that its tree cannot tell:
// the directories skipped for what they held, and the rules of the
// ignore files it skipped. A restore needs it to leave them alone
// (internal/stateignore).
type SkipInfo struct {
	Generated []string
	// RuleBlobs: the blob of what the capture read of each ignore file
	// it applied but skipped (walker.Ignored.Rules), by path.
	RuleBlobs map[string]string
	// RulesUnknown: the directories (slash paths, "" the top) of an
	// ignore file the capture skipped whose rules it did not keep.
	// Below them a path the state's tree lacks counts as ignored.
	RulesUnknown []string
	// RuleFiles: a record written before RuleBlobs: the content inline.
	RuleFiles map[string][]byte
	// TrackedIgnored: what the capture found git tracking that a
	// pattern or a built-in name ignores and its tree lacks
	// (walker.Result.TrackedIgnored): absent, not ignored. A directory
	// ends in "/": all below was absent.
	TrackedIgnored []string
}

// SkipInfoOf picks from a capture's Result.Skipped the directories
// skipped by evidence and the blobs of the ignore files skipped; an
// ignore file skipped without one makes its directory's rules unknown.
func SkipInfoOf(skipped []walker.Ignored) *SkipInfo {
	s := &SkipInfo{}
	for _, ig := range skipped {
		switch {
		case ig.Rule == "evidence":
			s.Generated = append(s.Generated, ig.Path)
		case ig.Dir || !slices.Contains(ignore.FileNames, path.Base(ig.Path)):
		case ig.Rules != "":
			if s.RuleBlobs == nil {
				s.RuleBlobs = map[string]string{}
			}
			s.RuleBlobs[ig.Path] = ig.Rules
		default:
			s.RulesUnknown = addDir(s.RulesUnknown, ParentDir(ig.Path))
		}
	}
	return s
}

// addDir adds d to dirs, once.
func addDir(dirs []string, d string) []string {
	if slices.Contains(dirs, d) {
		return dirs
	}
	return append(dirs, d)
}

// SkipInfoOfRecord returns what rec says its capture skipped; nil when
// unknown (a record made before the evidence rules).
func SkipInfoOfRecord(rec *SnapshotRecord) *SkipInfo {
	if rec.Rules < SkipRules {
		return nil
	}
	return &SkipInfo{Generated: rec.Generated, RuleBlobs: rec.RuleBlobs, RulesUnknown: rec.RulesUnknown, RuleFiles: rec.RuleFiles,
		TrackedIgnored: rec.TrackedIgnored}
}

// SnapshotEntry is the record of snapshot h; skip says what its capture
// skipped that its tree cannot tell (nil: unknown). Rules inline
// (SkipInfo.RuleFiles, of an older record) are not copied: their
// directories' rules become unknown, so no record grows with them.
func SnapshotEntry(h cas.Hash, kind string, files, bytes int64, skip *SkipInfo) cas.Entry {
	rec := SnapshotRecord{Version: MetaVersion, Kind: kind, Time: time.Now().UTC(), Files: files, Bytes: bytes}
	if skip != nil {
		rec.Rules, rec.Generated, rec.RuleBlobs, rec.RulesUnknown = SkipRules, skip.Generated, skip.RuleBlobs, skip.RulesUnknown
		rec.TrackedIgnored = skip.TrackedIgnored
		for _, p := range slices.Sorted(maps.Keys(skip.RuleFiles)) {
			rec.RulesUnknown = addDir(rec.RulesUnknown, ParentDir(p))
		}
	}
	return cas.Entry{Key: SnapKey(h), Value: EncodeJSON(rec)}
}

// ParentDir is the slash path of p's directory, "" for the top.
func ParentDir(p string) string {
	dir, _ := path.Split(p)
	return strings.TrimSuffix(dir, "/")
}

// Checkpoints are the states undo, redo and restore replaced, printed to
// the user as the way back ("turnback restore <checkpoint>"). Each one
// gets a record under PrefixCheckpoint saying when it was made and where
// it sits in its session's history: after turn Turn (the session's newest
// turn number at that moment, undone or not), before turn Turn+1.
//
// Retention treats a checkpoint like the turns around it: gc drops it only
// once retention has forgotten the turn after it (a turn numbered above
// Turn; SessionRecord.Forgotten remembers the highest turn retention ever
// forgot), or when it is older than the age limit, exactly as turns older
// than the limit go. The newest checkpoint of the store is kept regardless,
// as the newest turn is.

// CheckpointRecord is one checkpoint's place in history.
type CheckpointRecord struct {
	Version int       `json:"v"`
	Time    time.Time `json:"time"`
	Session string    `json:"session"`
	// Turn is the session's newest turn number when the checkpoint was
	// made (0: the session had no turn yet).
	Turn int `json:"turn"`
	// Command says what made it ("undo turn 3", "redo turn 3", "restore
	// 1a2b3c4d5e6f"); Paths are the paths the command changed, whose
	// earlier content the checkpoint holds (at most CheckpointPaths,
	// More counts the rest). Empty in records made before them.
	Command string   `json:"command,omitempty"`
	Paths   []string `json:"paths,omitempty"`
	More    int      `json:"more,omitempty"`
}

// CheckpointPaths is how many paths a checkpoint record names.
const CheckpointPaths = 50

// AddPath notes path p as changed by the checkpoint's command.
func (rec *CheckpointRecord) AddPath(p string) {
	if len(rec.Paths) == CheckpointPaths {
		rec.More++
		return
	}
	rec.Paths = append(rec.Paths, p)
}

// CheckpointEntry is the record rec of checkpoint cp.
func CheckpointEntry(cp cas.Hash, rec CheckpointRecord) cas.Entry {
	return cas.Entry{Key: CheckpointKey(cp), Value: EncodeJSON(rec)}
}

// DecodeCheckpoint decodes the checkpoint record k, v.
func DecodeCheckpoint(k, v []byte) (Checkpoint, error) {
	id := strings.TrimPrefix(string(k), PrefixCheckpoint)
	if _, err := cas.ParseHash(id); err != nil {
		return Checkpoint{}, fmt.Errorf("%w: checkpoint key %q", cas.ErrCorrupt, k)
	}
	var rec CheckpointRecord
	if err := json.Unmarshal(v, &rec); err != nil {
		return Checkpoint{}, fmt.Errorf("%w: checkpoint %s: %v", cas.ErrCorrupt, id, err)
	}
	return Checkpoint{ID: id, Time: rec.Time, Session: rec.Session, Turn: rec.Turn,
		Command: rec.Command, Paths: append([]string{}, rec.Paths...), More: rec.More}, nil
}

// OpName is what a checkpoint record says made it: verb and the turns
// ("undo turns 2, 3").
func OpName(verb string, turns []int) string {
	s := make([]string, len(turns))
	for i, n := range turns {
		s[i] = strconv.Itoa(n)
	}
	if len(turns) == 1 {
		return verb + " turn " + s[0]
	}
	return verb + " turns " + strings.Join(s, ", ")
}

// KeepCheckpoint applies retention to one checkpoint: forgotten is the
// highest turn number retention has forgotten in its session.
func KeepCheckpoint(c Checkpoint, forgotten int, o GCOptions, now time.Time) bool {
	if c.Turn < forgotten {
		return false // the turn after it is gone
	}
	return o.OlderThan < 0 || now.Sub(c.Time) <= o.OlderThan
}
