package termout

import (
	"fmt"
	"strings"
	"time"

	"github.com/turnback/turnback"
)

// SnapJSON is the --json document of snap and end.
type SnapJSON struct {
	Snapshot string `json:"snapshot"`
	Session  string `json:"session"`
	Turn     int    `json:"turn"`
	Files    int64  `json:"files"`
	Bytes    int64  `json:"bytes"`
	Stats    any    `json:"stats,omitempty"`
	Message  string `json:"message,omitempty"`
	// Kept: the open turn changed nothing and stays open (SnapResult.Kept).
	Kept bool `json:"kept,omitempty"`
	// Notice: what snap --take-notice (the agent hook's, through a
	// watch daemon) took.
	Notice *turnback.Notice `json:"notice,omitempty"`
	// IgnoredChanged: the turn was dropped, and these skipped paths
	// changed during it (SnapResult.IgnoredChanged).
	IgnoredChanged []turnback.Ignored `json:"ignored_changed,omitempty"`
	// PullEnded: this command ended a pull's pending apply
	// (SnapResult.PullEnded).
	PullEnded *turnback.PullEnded `json:"pull_ended,omitempty"`
}

func SnapDoc(res *turnback.SnapResult) SnapJSON {
	d := SnapJSON{Session: res.Session, Turn: res.Turn, Files: res.Files, Bytes: res.Bytes, Kept: res.Kept, Notice: res.Notice, PullEnded: res.PullEnded}
	if !res.Snapshot.IsZero() {
		d.Snapshot = res.Snapshot.String()
		d.Stats = StatsDoc(res.Stats, res.Watch)
	}
	switch {
	case res.NoOpenTurn:
		d.Message = NoOpenTurn(res.Session)
	case res.Dropped && res.Closed != nil && res.Closed.ClosedBy == "end":
		d.Message = DroppedWhy(res.Turn, res.IgnoredChanged)
	}
	if res.Dropped {
		d.IgnoredChanged = res.IgnoredChanged
	}
	return d
}

// StatsDoc is the "stats" member of snap, end and status: the walker's
// counters, plus "watch" when the watch daemon made the capture.
func StatsDoc(s turnback.Stats, w *turnback.WatchInfo) any {
	if w == nil {
		return s
	}
	return struct {
		turnback.Stats
		Watch *turnback.WatchInfo `json:"watch"`
	}{s, w}
}

func NoOpenTurn(session string) string {
	return fmt.Sprintf("no open turn in session %s: nothing recorded", session)
}

func Dropped(turn int) string {
	return fmt.Sprintf("turn %d changed nothing and was dropped", turn)
}

// maxIgnoredNamed bounds the paths DroppedWhy names.
const maxIgnoredNamed = 5

// DroppedWhy is Dropped, or for a turn that changed skipped paths only
// (changed), says which and why they are skipped.
func DroppedWhy(turn int, changed []turnback.Ignored) string {
	if len(changed) == 0 {
		return Dropped(turn)
	}
	var names []string
	for i, ig := range changed {
		if i == maxIgnoredNamed {
			names = append(names, fmt.Sprintf("and %d more", len(changed)-i))
			break
		}
		slash := ""
		if ig.Dir {
			slash = "/"
		}
		names = append(names, fmt.Sprintf("%s (%s)", QuotePath(ig.Path+slash), IgnoredWhy(ig)))
	}
	return fmt.Sprintf("turn %d changed only ignored paths: %s; nothing to undo for it", turn, strings.Join(names, ", "))
}

// UndidAfterDropped says which turn an undo undid when the session's
// latest turn had been dropped (RestoreResult.AfterDropped), "" otherwise.
func UndidAfterDropped(res *turnback.RestoreResult, now time.Time) string {
	if res.AfterDropped == 0 || len(res.Moved) == 0 || res.DryRun != nil {
		return ""
	}
	t := res.Moved[len(res.Moved)-1]
	when := t.Ended
	if when.IsZero() {
		when = t.Started
	}
	msg := ""
	if t.Message != "" {
		msg = fmt.Sprintf(" %q", SafeText(t.Message))
	}
	return fmt.Sprintf("turn %d changed nothing turnback captures and was dropped: this undid turn %d%s (ended %s)", res.AfterDropped, t.N, msg, Ago(when, now))
}

var ChangeMarks = map[turnback.ChangeKind]string{
	turnback.Added: "A", turnback.Deleted: "D", turnback.Modified: "M",
	turnback.ModeChanged: "P", turnback.TypeChanged: "T",
}

func DirSlash(a, b *turnback.Entry) string {
	e := a
	if e == nil {
		e = b
	}
	if e != nil && e.Kind == turnback.KindDir {
		return "/"
	}
	return ""
}

func IDOrEmpty(empty bool, s string) string {
	if empty {
		return ""
	}
	return s
}

type TurnJSON struct {
	// Session names the turn's session (log --all only).
	Session  string `json:"session,omitempty"`
	Turn     int    `json:"turn"`
	Before   string `json:"before"`
	After    string `json:"after,omitempty"`
	Open     bool   `json:"open"`
	Undone   bool   `json:"undone,omitempty"`
	Started  string `json:"started"`
	Ended    string `json:"ended,omitempty"`
	ClosedBy string `json:"closed_by,omitempty"`
	Message  string `json:"message"`
	Added    int    `json:"added"`
	Modified int    `json:"modified"`
	Deleted  int    `json:"deleted"`
	// Unprotected: paths the turn deleted or changed that undo cannot
	// bring back (see UnprotectedNote).
	Unprotected []string `json:"unprotected,omitempty"`
	// Meta: what snap --meta stored with the turn.
	Meta map[string]string `json:"meta,omitempty"`
	// PartlyUndone: the paths undo --path reverted of a turn still on
	// the undo stack.
	PartlyUndone []string `json:"partly_undone,omitempty"`
	// Pulled: a pull brought the turn and the folder lacks it.
	Pulled bool `json:"pulled,omitempty"`
}

func TurnDoc(t *turnback.Turn, undone bool) TurnJSON {
	d := TurnJSON{Turn: t.N, Before: t.Before.String(), Open: t.Open(), Undone: undone, Started: t.Started.Format(time.RFC3339),
		ClosedBy: t.ClosedBy, Message: t.Message, Added: t.Added, Modified: t.Modified, Deleted: t.Deleted, Meta: t.Meta,
		PartlyUndone: t.PartlyUndone, Pulled: t.Pulled}
	if !t.Open() {
		d.After = t.After.String()
		d.Ended = t.Ended.Format(time.RFC3339)
	}
	return d
}

type EntryJSON struct {
	Path      string `json:"path"`
	PathBytes string `json:"path_bytes,omitempty"`
	Kind      string `json:"kind"`
	Mode      string `json:"mode"`
	Size      int64  `json:"size"`
	Hash      string `json:"hash,omitempty"`
	Target    string `json:"target,omitempty"`
	// TargetBytes: a symlink target that is not valid UTF-8, exactly.
	TargetBytes string `json:"target_bytes,omitempty"`
	Uncaptured  bool   `json:"uncaptured,omitempty"`
	Files       int64  `json:"files,omitempty"`
}

// ChangeJSON is one change in status --json: path_bytes carries a path
// that is not valid UTF-8 exactly (see JSONBytes).
type ChangeJSON struct {
	Path      string `json:"path"`
	PathBytes string `json:"path_bytes,omitempty"`
	Change    string `json:"change"`
}

func ChangeDocs(cs []turnback.Change) []ChangeJSON {
	out := []ChangeJSON{}
	for _, c := range cs {
		out = append(out, ChangeJSON{Path: c.Path, PathBytes: JSONBytes(c.Path), Change: c.What})
	}
	return out
}

type ProblemJSON struct {
	Snapshot  string `json:"snapshot"`
	Path      string `json:"path"`
	PathBytes string `json:"path_bytes,omitempty"`
	Err       string `json:"error"`
}

func ProblemDocs(ps []turnback.VerifyProblem) []ProblemJSON {
	out := []ProblemJSON{}
	for _, p := range ps {
		out = append(out, ProblemJSON{Snapshot: p.Snapshot, Path: p.Path, PathBytes: JSONBytes(p.Path), Err: p.Err})
	}
	return out
}

// RestoreDoc is the --json document of undo, redo and restore, and of
// their dry runs (res.DryRun): the same keys, what the command would
// report, with "dry_run": true, "stopped" (it would stop at the
// conflicts) and no checkpoint. "moved" lists the turns moved (would
// be), oldest first, as MovedJSON.
func RestoreDoc(res *turnback.RestoreResult) map[string]any {
	if p := res.DryRun; p != nil {
		doc := RestoreDoc(&turnback.RestoreResult{Turns: p.Turns, Paths: p.Paths, Restored: p.Restored, Deleted: p.Deleted,
			Created: p.Created, Merged: p.Merged, Markers: p.Markers, Conflicts: p.Conflicts, NotRestorable: p.NotRestorable,
			Moved: res.Moved, Partial: res.Partial})
		delete(doc, "checkpoint")
		doc["dry_run"], doc["stopped"] = true, p.Stopped
		return doc
	}
	paths := func(ns []turnback.PathNote) []string {
		out := []string{}
		for _, n := range ns {
			out = append(out, n.Path)
		}
		return out
	}
	reasons := map[string]string{}
	for _, n := range append(append([]turnback.PathNote{}, res.Conflicts...), res.NotRestorable...) {
		reasons[n.Path] = n.Reason
	}
	doc := map[string]any{
		"turns": res.Turns, "restored": NonNil(res.Restored), "deleted": NonNil(res.Deleted),
		"created": NonNil(res.Created), "conflicts": paths(res.Conflicts),
		"not_restorable": paths(res.NotRestorable), "checkpoint": "", "reasons": reasons,
		"paths": treePaths(res.Paths), "merged": NonNil(res.Merged), "markers": NonNil(res.Markers),
		"moved": movedDocs(res.Moved),
	}
	if !res.Checkpoint.IsZero() {
		doc["checkpoint"] = res.Checkpoint.String()
	}
	if pt := res.Partial; pt != nil {
		doc["partial"] = map[string]any{"of": pt.Of, "paths": NonNil(pt.Paths), "message": PartialLine(pt)}
	}
	if res.AfterDropped > 0 {
		doc["after_dropped"] = res.AfterDropped
		doc["message"] = UndidAfterDropped(res, time.Now())
	}
	// Names that are not valid UTF-8: the lists carry display forms, and
	// "<list>_bytes" (only then) every such name exactly (PathsBytes).
	for _, l := range []struct {
		key   string
		paths []string
	}{{"restored", res.Restored}, {"deleted", res.Deleted}, {"created", res.Created},
		{"conflicts", paths(res.Conflicts)}, {"not_restorable", paths(res.NotRestorable)}} {
		if b := PathsBytes(l.paths); b != nil {
			doc[l.key+"_bytes"] = b
		}
	}
	if res.Incomplete() {
		doc["incomplete"] = true
	}
	return doc
}

// treePaths is a partial undo's paths, "." for the whole work tree.
// MovedJSON is a turn an undo or redo moved (RestoreResult.Moved).
type MovedJSON struct {
	Turn    int               `json:"turn"`
	Message string            `json:"message"`
	Meta    map[string]string `json:"meta,omitempty"`
}

func movedDocs(ts []*turnback.Turn) []MovedJSON {
	out := []MovedJSON{}
	for _, t := range ts {
		out = append(out, MovedJSON{Turn: t.N, Message: t.Message, Meta: t.Meta})
	}
	return out
}

func treePaths(ps []string) []string {
	out := []string{}
	for _, p := range ps {
		if p == "" {
			p = "."
		}
		out = append(out, p)
	}
	return out
}

// RecoverDoc is the --json document of recover.
func RecoverDoc(res *turnback.RecoverResult) map[string]any {
	doc := map[string]any{"found": res.Found, "rolled_back": res.RolledBack && res.Found,
		"restored": NonNil(res.Restored), "deleted": NonNil(res.Deleted), "created": NonNil(res.Created)}
	kept, reasons := []string{}, map[string]string{}
	for _, k := range res.Kept {
		kept = append(kept, k.Path)
		reasons[k.Path] = k.Reason
	}
	doc["not_restorable"], doc["reasons"] = kept, reasons
	return doc
}

// VerifyDoc is the --json document of a verify that found nothing
// wrong: every field of the result, with problems carrying path_bytes.
func VerifyDoc(res *turnback.VerifyResult) any {
	return struct {
		*turnback.VerifyResult
		Problems []ProblemJSON `json:"problems"`
	}{res, ProblemDocs(res.Problems)}
}

// VerifyFailureDoc is the --json document of a verify that found damage.
func VerifyFailureDoc(res *turnback.VerifyResult) map[string]any {
	if res == nil {
		res = &turnback.VerifyResult{}
	}
	return map[string]any{"snapshots": res.Snapshots, "trees": res.Trees, "contents": res.Contents, "references": res.References, "problems": ProblemDocs(res.Problems)}
}
