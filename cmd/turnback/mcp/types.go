package mcp

import (
	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// The tools' arguments: every tool takes folder and session. The
// jsonschema tags are the descriptions the client's model reads.

// TurnsIn are turnback_turns' arguments.
type TurnsIn struct {
	Folder  string `json:"folder,omitempty" jsonschema:"the project folder (default: the server's working directory; the nearest folder above it with a turnback store is used)"`
	Session string `json:"session,omitempty" jsonschema:"the session (agent conversation) name or a unique prefix of it (default: the session of the folder's newest turn)"`
	Limit   int    `json:"limit,omitempty" jsonschema:"list at most this many turns, newest first (default 20)"`
}

// ShowIn are turnback_show's arguments.
type ShowIn struct {
	Folder  string `json:"folder,omitempty" jsonschema:"the project folder (default: the server's working directory; the nearest folder above it with a turnback store is used)"`
	Session string `json:"session,omitempty" jsonschema:"the session (agent conversation) name or a unique prefix of it (default: the session of the folder's newest turn)"`
	Turn    int    `json:"turn,omitempty" jsonschema:"the turn's number, as turnback_turns lists it (default: the newest turn)"`
	ID      string `json:"id,omitempty" jsonschema:"instead of turn: a snapshot id (4 or more hex digits) that begins or ends a turn"`
}

// DiffIn are turnback_diff's arguments.
type DiffIn struct {
	Folder  string `json:"folder,omitempty" jsonschema:"the project folder (default: the server's working directory; the nearest folder above it with a turnback store is used)"`
	Session string `json:"session,omitempty" jsonschema:"the session (agent conversation) name or a unique prefix of it (default: the session of the folder's newest turn)"`
	Turn    int    `json:"turn,omitempty" jsonschema:"the changes of this turn (its number, as turnback_turns lists it)"`
	From    string `json:"from,omitempty" jsonschema:"instead of turn: the snapshot to compare from, an id (4 or more hex digits) or @N (the state after turn N) or @N^ (before it) (default: the session's last snapshot)"`
	To      string `json:"to,omitempty" jsonschema:"the snapshot to compare to, as from (default: the folder as it is now)"`
}

// StatusIn are turnback_status' arguments.
type StatusIn struct {
	Folder  string `json:"folder,omitempty" jsonschema:"the project folder (default: the server's working directory; the nearest folder above it with a turnback store is used)"`
	Session string `json:"session,omitempty" jsonschema:"the session (agent conversation) name or a unique prefix of it (default: the session of the folder's newest turn)"`
}

// UndoIn are turnback_undo's arguments.
type UndoIn struct {
	Folder  string   `json:"folder,omitempty" jsonschema:"the project folder (default: the server's working directory; the nearest folder above it with a turnback store is used)"`
	Session string   `json:"session,omitempty" jsonschema:"the session (agent conversation) name or a unique prefix of it (default: the session of the folder's newest turn)"`
	Count   int      `json:"count,omitempty" jsonschema:"how many of the last turns to undo (default 1)"`
	Paths   []string `json:"paths,omitempty" jsonschema:"undo only what those turns changed at or below these paths (relative to the folder); the turns stay, with their other changes"`
	DryRun  bool     `json:"dry_run,omitempty" jsonschema:"say what the undo would change, changing nothing"`
	Force   bool     `json:"force,omitempty" jsonschema:"overwrite edits made since the turns (they are kept in the checkpoint); only when the user asked for it"`
}

// RedoIn are turnback_redo's arguments.
type RedoIn struct {
	Folder  string `json:"folder,omitempty" jsonschema:"the project folder (default: the server's working directory; the nearest folder above it with a turnback store is used)"`
	Session string `json:"session,omitempty" jsonschema:"the session (agent conversation) name or a unique prefix of it (default: the session of the folder's newest turn)"`
	Count   int    `json:"count,omitempty" jsonschema:"how many undone turns to bring back, oldest first (default 1)"`
	DryRun  bool   `json:"dry_run,omitempty" jsonschema:"say what the redo would change, changing nothing"`
	Force   bool   `json:"force,omitempty" jsonschema:"overwrite edits made since the undo (they are kept in the checkpoint); only when the user asked for it"`
}

// Turn is one turn in the results: the document log --json gives for
// it (termout.TurnDoc), so a turn has one shape for users and agents.
type Turn = termout.TurnJSON

// Change is one changed path: the library's Change, whose JSON is
// {"path", "change"}.
type Change = turnback.Change

// Ignored is a path a state skips and why: status --json's document,
// {"path", "dir", "reason", "rule", ...}.
type Ignored = turnback.Ignored

// TurnsOut is turnback_turns' result.
type TurnsOut struct {
	Folder  string `json:"folder"`
	Session string `json:"session"`
	Agent   string `json:"agent,omitempty"`
	Turns   []Turn `json:"turns"`
	More    int    `json:"more,omitempty"`
}

// ShowOut is turnback_show's result.
type ShowOut struct {
	Folder  string   `json:"folder"`
	Session string   `json:"session"`
	Turn    Turn     `json:"turn"`
	Changes []Change `json:"changes"`
	More    int      `json:"more,omitempty"`
	// SkippedNow: the paths of the older state the newer one skips (a
	// marker or an ignore rule came since), not deleted; as status
	// --json gives them. SkippedMore counts those past the limit.
	SkippedNow  []Ignored `json:"skipped_now,omitempty"`
	SkippedMore int       `json:"skipped_more,omitempty"`
}

// DiffFile is one path of turnback_diff's result.
type DiffFile struct {
	Path   string `json:"path"`
	Change string `json:"change"`
	Diff   string `json:"diff,omitempty"`
	Binary bool   `json:"binary,omitempty"`
}

// DiffOut is turnback_diff's result.
type DiffOut struct {
	Folder    string     `json:"folder"`
	From      string     `json:"from"`
	To        string     `json:"to"`
	Files     []DiffFile `json:"files"`
	Truncated bool       `json:"truncated,omitempty"`
	More      int        `json:"more,omitempty"`
	// SkippedNow: the paths of the older state the newer one skips (a
	// marker or an ignore rule came since), not deleted; as status
	// --json gives them. SkippedMore counts those past the limit.
	SkippedNow  []Ignored `json:"skipped_now,omitempty"`
	SkippedMore int       `json:"skipped_more,omitempty"`
}

// StatusOut is turnback_status' result.
type StatusOut struct {
	Folder  string   `json:"folder"`
	Session string   `json:"session"`
	Base    string   `json:"base"`
	Changes []Change `json:"changes"`
	More    int      `json:"more,omitempty"`
	// SkippedNow: the paths of the older state the newer one skips (a
	// marker or an ignore rule came since), not deleted; as status
	// --json gives them. SkippedMore counts those past the limit.
	SkippedNow  []Ignored `json:"skipped_now,omitempty"`
	SkippedMore int       `json:"skipped_more,omitempty"`
}

// Note is a path with a reason.
type Note struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// RestoreOut is turnback_undo's and turnback_redo's result.
type RestoreOut struct {
	Folder        string   `json:"folder"`
	Session       string   `json:"session"`
	Summary       string   `json:"summary"`
	Turns         int      `json:"turns"`
	Restored      []string `json:"restored"`
	Deleted       []string `json:"deleted"`
	Created       []string `json:"created"`
	Paths         []string `json:"paths,omitempty"`
	DryRun        bool     `json:"dry_run,omitempty"`
	Stopped       bool     `json:"stopped,omitempty"`
	Conflicts     []Note   `json:"conflicts,omitempty"`
	Overwritten   []Note   `json:"overwritten,omitempty"`
	NotRestorable []Note   `json:"not_restorable,omitempty"`
	Checkpoint    string   `json:"checkpoint,omitempty"`
	More          int      `json:"more,omitempty"`
}
