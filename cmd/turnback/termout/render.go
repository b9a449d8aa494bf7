package termout

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/restore"
	"github.com/turnback/turnback/watch/daemon"
)

// Restore writes the human summary of a restoring command, or of its dry
// run (res.DryRun).
func Restore(w io.Writer, verb string, res *turnback.RestoreResult) { RestoreList(w, verb, res, true) }

// RestoreList is Restore; unless verbose, a directory the command
// deletes or brings back whole, with collapseMin paths or more below it,
// is one line ("D pkg/ (100 files)"). A dry run's report is labelled a
// plan.
func RestoreList(w io.Writer, verb string, res *turnback.RestoreResult, verbose bool) {
	RestoreListColor(w, verb, res, verbose, false)
}

// RestoreListColor is RestoreList with the marks coloured as status
// colours them, when color is true.
func RestoreListColor(w io.Writer, verb string, res *turnback.RestoreResult, verbose, color bool) {
	p, overwrote, notRestored := res.DryRun, "overwrote", "not restored"
	turns := ""
	if verb != "restored" {
		turns = fmt.Sprintf(" %d turn%s", res.Turns, Plural(res.Turns))
	}
	if p == nil {
		p = &turnback.Preview{Turns: res.Turns, Paths: res.Paths, Restored: res.Restored, Deleted: res.Deleted, Created: res.Created,
			Merged: res.Merged, Markers: res.Markers, Conflicts: res.Conflicts, NotRestorable: res.NotRestorable}
	} else {
		verb = "plan (dry run, nothing changed): would " + map[string]string{"undid": "undo", "redid": "redo", "restored": "restore"}[verb]
		overwrote, notRestored = "would overwrite", "would not restore"
	}
	if len(p.Paths) > 0 {
		quoted := make([]string, len(p.Paths))
		for i, q := range p.Paths {
			quoted[i] = QuotePath(q)
			if q == "" {
				quoted[i] = "."
			}
		}
		turns += ", only " + strings.Join(quoted, " ")
	}
	if s := UndidAfterDropped(res, time.Now()); s != "" {
		fmt.Fprintln(w, s)
	}
	if s := PartialLine(res.Partial); s != "" {
		fmt.Fprintln(w, s)
	}
	fmt.Fprintf(w, "%s%s: %d restored, %d deleted, %d brought back\n", verb, turns, len(p.Restored), len(p.Deleted), len(p.Created))
	merged := map[string]string{}
	for _, q := range p.Merged {
		merged[q] = " (merged: edits made since are kept)"
	}
	for _, q := range p.Markers {
		merged[q] = " (merged with conflict markers: edit them out)"
	}
	for _, q := range p.Restored {
		fmt.Fprintf(w, "  %s %s%s\n", Mark(color, "M"), QuotePath(q), merged[q])
	}
	for _, l := range collapse(p.Deleted, verbose) {
		fmt.Fprintf(w, "  %s %s\n", Mark(color, "D"), l)
	}
	for _, l := range collapse(p.Created, verbose) {
		fmt.Fprintf(w, "  %s %s\n", Mark(color, "A"), l)
	}
	if !p.Stopped {
		for _, n := range p.Conflicts {
			fmt.Fprintf(w, "  %s %s (%s)\n", Paint(color, ConflictColor, overwrote), QuotePath(n.Path), SafeText(n.Reason))
		}
	}
	for _, n := range p.NotRestorable {
		fmt.Fprintf(w, "  %s: %s (%s)\n", Paint(color, ConflictColor, notRestored), QuotePath(n.Path), SafeText(n.Reason))
	}
	for _, n := range p.NotRestorable {
		if n.Reason == restore.UncapturedDirInTheWay {
			fmt.Fprintf(w, "  %s/ was never captured (a new directory of TURNBACK_LARGE_DIR_FILES files or more), so it stays: if the turn made it, delete it yourself (rm -r %s)\n",
				QuotePath(n.Path), shellPath(n.Path))
		}
	}
	if !res.Checkpoint.IsZero() {
		fmt.Fprintf(w, "checkpoint %s (turnback restore %s goes back)\n", res.Checkpoint.Short(), res.Checkpoint.Short())
	}
}

// Problems lists (on stderr, w) what a capture could not capture.
func Problems(w io.Writer, res *turnback.SnapResult) {
	for _, p := range res.Stats.Problems {
		fmt.Fprintf(w, "turnback: warning: %s: %s\n", DisplayPath(p.Path), SafeText(p.Err))
	}
	Unprotected(w, res.Stats.Unprotected)
	NewUncapturedDirs(w, res.Stats.Uncaptured)
	if res.RetentionErr != nil {
		fmt.Fprintf(w, "turnback: warning: automatic retention failed (the snapshot is recorded): %s\n", SafeText(res.RetentionErr.Error()))
	}
}

// Recover writes the human summary of recover.
func Recover(w io.Writer, res *turnback.RecoverResult) { RecoverColor(w, res, false) }

// RecoverColor is Recover with the marks, and what it kept, coloured as
// undo colours them when color is true.
func RecoverColor(w io.Writer, res *turnback.RecoverResult, color bool) {
	switch {
	case !res.Found:
		fmt.Fprintln(w, "nothing to recover")
		return
	case !res.RolledBack:
		fmt.Fprintln(w, "finished the interrupted operation")
		return
	}
	fmt.Fprintf(w, "rolled back the interrupted operation: %d restored, %d deleted, %d brought back\n", len(res.Restored), len(res.Deleted), len(res.Created))
	for _, p := range res.Restored {
		fmt.Fprintf(w, "  %s %s\n", Mark(color, "M"), QuotePath(p))
	}
	for _, p := range res.Deleted {
		fmt.Fprintf(w, "  %s %s\n", Mark(color, "D"), QuotePath(p))
	}
	for _, p := range res.Created {
		fmt.Fprintf(w, "  %s %s\n", Mark(color, "A"), QuotePath(p))
	}
	for _, n := range res.Kept {
		fmt.Fprintf(w, "  %s: %s (%s)\n", Paint(color, ConflictColor, "not restored"), QuotePath(n.Path), SafeText(n.Reason))
	}
}

// ShowDoc is the --json document of show.
func ShowDoc(info *turnback.SnapshotInfo) map[string]any {
	ents := []EntryJSON{}
	for _, pe := range info.Entries {
		e := pe.Entry
		ej := EntryJSON{Path: pe.Path, PathBytes: JSONBytes(pe.Path), Kind: e.Kind.String(), Mode: fmt.Sprintf("%04o", e.Mode), Size: e.Size,
			Target: e.Target, TargetBytes: JSONBytes(e.Target), Uncaptured: e.Uncaptured, Files: e.Files}
		if !e.Hash.IsZero() && e.Kind == turnback.KindFile {
			ej.Hash = e.Hash.String()
		}
		ents = append(ents, ej)
	}
	turns := []TurnJSON{}
	for _, t := range info.Turns {
		turns = append(turns, TurnDoc(t, false))
	}
	doc := map[string]any{"snapshot": info.ID.String(), "files": info.Files, "bytes": info.Bytes, "turns": turns, "entries": ents}
	if info.Partial != nil {
		doc["partial"] = info.Partial
	}
	return doc
}

// Show writes what show prints for people: the snapshot, whether it is
// partial, the turns that start or end at it, and every path it holds.
func Show(w io.Writer, info *turnback.SnapshotInfo) {
	fmt.Fprintf(w, "snapshot %s\n%d files, %s\n", info.ID.String(), info.Files, HumanBytes(info.Bytes))
	if p := info.Partial; p != nil {
		fmt.Fprintf(w, "partial: restore of it puts back only the %d path%s it holds; the others listed are an earlier capture's\n", p.Paths, Plural(p.Paths))
	}
	for _, t := range info.Turns {
		role := "before"
		if !t.Open() && t.After == info.ID {
			role = "after"
		}
		if t.Message == "" {
			fmt.Fprintf(w, "%s turn %d\n", role, t.N)
		} else {
			fmt.Fprintf(w, "%s turn %d: %s\n", role, t.N, SafeText(t.Message))
		}
	}
	fmt.Fprintln(w)
	for _, pe := range info.Entries {
		e := pe.Entry
		extra := ""
		switch {
		case e.Kind == turnback.KindSymlink:
			extra = " -> " + QuotePath(e.Target)
		case e.Uncaptured && e.Kind == turnback.KindDir:
			extra = fmt.Sprintf(" (not captured: %d files)", e.Files)
		case e.Uncaptured:
			extra = " (not captured)"
		}
		name := pe.Path
		if e.Kind == turnback.KindDir {
			name += "/"
		}
		fmt.Fprintf(w, "%-7s %04o %10d  %s%s\n", e.Kind, e.Mode, e.Size, QuotePath(name), extra)
	}
}

// InfoDoc is the --json document of info: the Info, paths that are not
// valid UTF-8 also exactly (see JSONBytes), and the daemon that ran the
// command, if one did.
func InfoDoc(in *turnback.Info, dmn *daemon.Info) any {
	return struct {
		*turnback.Info
		WorkTreeBytes string       `json:"work_tree_bytes,omitempty"`
		StoreBytes    string       `json:"store_bytes,omitempty"`
		Daemon        *daemon.Info `json:"watch_daemon,omitempty"`
	}{in, JSONBytes(in.WorkTree), JSONBytes(in.Store), dmn}
}

// Info writes what info prints for people; watchNote says how a daemon
// would start when none ran the command (dmn nil).
func Info(w io.Writer, in *turnback.Info, dmn *daemon.Info, loc *time.Location, watchNote string) {
	saved := 0.0
	if in.LogicalBytes > 0 {
		saved = 100 * (1 - float64(in.UniqueBytes)/float64(in.LogicalBytes))
	}
	fmt.Fprintf(w, "work tree:  %s\nstore:      %s\ndisk:       %s\n", QuotePath(in.WorkTree), QuotePath(in.Store), HumanBytes(in.DiskBytes))
	fmt.Fprintf(w, "sessions:   %d (%d turn%s, %d redoable)\nsnapshots:  %d\n", in.Sessions, in.Turns, Plural(in.Turns), in.Redoable, in.Snapshots)
	fmt.Fprintf(w, "content:    %s unique of %s logical across snapshots (deduplication saves %.1f%%; compression more)\n",
		HumanBytes(in.UniqueBytes), HumanBytes(in.LogicalBytes), saved)
	Protection(w, in)
	fmt.Fprintf(w, "limits:     files over %s and new directories of %d+ files are not captured\n",
		HumanBytes(in.SizeLimit), in.LargeDirFiles)
	fmt.Fprintf(w, "retention:  %d turn%s and %d day%s per session\n", in.KeepTurns, Plural(in.KeepTurns), in.KeepAgeDays, Plural(in.KeepAgeDays))
	if dmn != nil {
		mem := ""
		if dmn.RSSBytes > 0 {
			mem = ", " + HumanBytes(dmn.RSSBytes) + " of memory"
		}
		fmt.Fprintf(w, "watched:    by pid %d since %s (%d commands served%s; socket %s)\n",
			dmn.PID, dmn.Since.In(loc).Format("2006-01-02 15:04:05"), dmn.Requests, mem, dmn.Socket)
	} else {
		fmt.Fprintf(w, "watched:    no (%s)\n", watchNote)
	}
}

// Repaired writes what verify --repair rebuilt (on w) and the damage
// its verify found (on stderr).
func Repaired(w, stderr io.Writer, res *turnback.RepairResult) {
	damaged := res.Verify != nil && len(res.Verify.Problems) > 0
	if s := res.Store; s == nil && res.Log == nil && len(res.Keys) == 0 && len(res.Healed) == 0 {
		switch {
		case damaged && res.Served:
			fmt.Fprintln(w, "nothing repaired: the database opens, but a watch daemon serves this store (below)")
		case damaged:
			fmt.Fprintln(w, "nothing repaired: the database opens, but nothing in the folder could rebuild the damage listed below")
		default:
			fmt.Fprintln(w, "nothing to repair: the database opens")
		}
	} else if s != nil {
		fmt.Fprintf(w, "repaired: %s\n", s.Damage)
		fmt.Fprintf(w, "  the damaged database is kept, whole, in %s\n", s.MovedTo)
		fmt.Fprintf(w, "  rebuilt from %d table files and %d memtable logs: %d records, %d pack files linked\n", s.Tables, s.Memtables, s.Keys, s.Packs)
		for _, b := range s.BadTables {
			fmt.Fprintf(w, "  unreadable table: %s\n", b)
		}
		for _, b := range s.BadMems {
			fmt.Fprintf(w, "  unreadable memtable logs: %s\n", b)
		}
		if s.Lost > 0 {
			fmt.Fprintf(w, "  %d records named Badger's value log and were not recovered\n", s.Lost)
		}
	}
	if res.Log != nil {
		LogSalvaged(w, res.Log)
	}
	for _, k := range res.Keys {
		KeyRepaired(w, k)
	}
	for _, h := range res.Healed {
		Healed(w, h)
	}
	VerifyProblems(stderr, res.Verify)
	if res.Served && damaged {
		fmt.Fprintln(stderr, "turnback: a watch daemon serves this store, so damaged content was not stored again from the folder: stop it (turnback watch --stop) and run turnback verify --repair again")
	}
}

// Healed writes that verify --repair stored damaged content again.
func Healed(w io.Writer, h turnback.HealedPath) {
	fmt.Fprintf(w, "repaired: the damaged content %s is stored again, read from %s, which still holds it\n", h.Content[:12], DisplayPath(h.Path))
}

// KeyRepaired writes what verify --repair did with a record whose key
// was damaged.
func KeyRepaired(w io.Writer, k turnback.KeyRepair) {
	if !k.Restored {
		fmt.Fprintf(w, "repaired: dropped the record under the damaged key %s: no state it could be was found; what it said of its state is lost\n", SafeText(k.Key))
		return
	}
	held := ""
	if len(k.Turns) > 0 {
		held = " (" + strings.Join(k.Turns, ", ") + ")"
	}
	fmt.Fprintf(w, "repaired: the record under the damaged key %s is stored again as state %s%s; nothing was lost\n", SafeText(k.Key), k.State[:12], held)
}

// Snapped writes what snap prints for people: the snapshot id on
// stdout, the turn it started on stderr.
func Snapped(stdout, stderr io.Writer, res *turnback.SnapResult) {
	fmt.Fprintln(stdout, res.Snapshot.Short())
	if res.Dropped && res.Closed != nil && len(res.IgnoredChanged) > 0 {
		fmt.Fprintln(stderr, DroppedWhy(res.Closed.N, res.IgnoredChanged))
	}
	what := "started"
	if res.Kept {
		what = "still open (nothing changed since it started)"
	}
	fmt.Fprintf(stderr, "turn %d of session %s %s: %d files, %s; read %d files (%s)\n",
		res.Turn, res.Session, what, res.Files, HumanBytes(res.Bytes), res.Stats.HashedFiles, HumanBytes(res.Stats.HashedBytes))
}

// Ended writes what end prints for people: the snapshot id on stdout,
// what became of the turn on stderr (or, with no open turn, on stdout).
func Ended(stdout, stderr io.Writer, res *turnback.SnapResult) {
	switch {
	case res.NoOpenTurn:
		fmt.Fprintln(stdout, NoOpenTurn(res.Session))
	case res.Dropped:
		fmt.Fprintln(stdout, res.Snapshot.Short())
		fmt.Fprintln(stderr, DroppedWhy(res.Turn, res.IgnoredChanged))
	default:
		fmt.Fprintln(stdout, res.Snapshot.Short())
		c := res.Closed
		fmt.Fprintf(stderr, "turn %d ended: +%d ~%d -%d\n", res.Turn, c.Added, c.Modified, c.Deleted)
	}
}

// Incomplete is the message of an undo, redo or restore that left paths
// not restorable (exit 5).
func Incomplete(res *turnback.RestoreResult) string {
	n := len(res.Unrestored())
	return fmt.Sprintf("turnback: incomplete: %d path%s could not be restored (marked not restored); everything else is done", n, Plural(n))
}

// Conflicts writes, on stderr (w), the report of an undo or redo (own:
// "undo", "redo") that changed nothing because paths it would change
// were edited outside the turns: once, the paths, then the commands that
// go on. cli is the command line's start ("turnback", with -C and
// --session when given); merge the --merge argument given ("" none).
func Conflicts(w io.Writer, own, cli, merge string, r *turnback.RestoreResult) {
	ConflictsColor(w, own, cli, merge, r, false)
}

// ConflictsColor is Conflicts with the word "conflict" in ConflictColor
// when color is true.
func ConflictsColor(w io.Writer, own, cli, merge string, r *turnback.RestoreResult, color bool) {
	n := len(r.Conflicts)
	why := "edited after the turns"
	switch others := otherSessions(r.Conflicts); {
	case own == "redo":
		why = "edited since the undo"
	case others == n:
		why = "also changed by another session's turn that ran at the same time"
	case others > 0:
		why = "edited after the turns, or by another session's turn that ran at the same time"
	}
	fmt.Fprintf(w, "turnback: %s: %s changed nothing: %d path%s %s %s:\n", Paint(color, ConflictColor, "conflict"), own, n, Plural(n), map[bool]string{true: "was", false: "were"}[n == 1], why)
	for _, c := range r.Conflicts {
		fmt.Fprintf(w, "  %s: %s\n", QuotePath(c.Path), SafeText(c.Reason))
	}
	fmt.Fprintln(w, "Keep the edits, or run one of:")
	if own == "undo" {
		switch {
		case otherSessions(r.Conflicts) == n:
			// A merge meets the same turns: only --force goes on.
		case merge == "":
			fmt.Fprintf(w, "  %s undo --merge   revert the turns' changes, keep the edits (text files)\n", cli)
		case merge == "--merge", merge == "--merge=clean":
			fmt.Fprintf(w, "  %s undo --merge=markers   merge anyway, with conflict markers where they overlap\n", cli)
		}
		fmt.Fprintf(w, "  %s undo --force   undo anyway: the edits stay in a checkpoint (redo brings them back)\n", cli)
		return
	}
	fmt.Fprintf(w, "  %s %s --force   %s anyway: the edits stay in a checkpoint (turnback checkpoints lists it)\n", cli, own, own)
}

// otherSessions counts the conflicts with another session's turn.
func otherSessions(conflicts []turnback.PathNote) int {
	n := 0
	for _, c := range conflicts {
		if c.ByOtherSession() {
			n++
		}
	}
	return n
}

// VerifyProblems writes, on stderr (w), the damage a verify found.
func VerifyProblems(w io.Writer, res *turnback.VerifyResult) {
	if res == nil {
		return
	}
	for _, p := range res.Problems {
		fmt.Fprintf(w, "turnback: snapshot %s: %s: %s\n", p.Snapshot[:12], DisplayPath(p.Path), SafeText(p.Err))
	}
}

// Verified writes what a verify that found nothing wrong checked.
func Verified(w io.Writer, res *turnback.VerifyResult) {
	fmt.Fprintf(w, "ok: %d snapshots, %d trees, %d file contents verified", res.Snapshots, res.Trees, res.Contents)
	if res.References > 0 {
		fmt.Fprintf(w, " (%d read back by reference)", res.References)
	}
	fmt.Fprintln(w)
}

// RepairVerified writes what the verify of a repair checked.
func RepairVerified(w io.Writer, v *turnback.VerifyResult) {
	fmt.Fprintf(w, "ok: %d snapshots, %d trees, %d file contents verified\n", v.Snapshots, v.Trees, v.Contents)
}

// collapseMin is how many paths below a directory deleted or brought
// back whole make the listing show it as one line.
const collapseMin = 10

// collapse is the listing of paths (one list of a restore, each quoted):
// unless verbose, a directory of the list with collapseMin or more of the
// list's paths below it is one line, "pkg/ (100 files)", counting the
// paths below it with none below them.
func collapse(paths []string, verbose bool) []string {
	out := make([]string, 0, len(paths))
	if verbose || len(paths) < collapseMin {
		for _, q := range paths {
			out = append(out, QuotePath(q))
		}
		return out
	}
	in, parent := map[string]bool{}, map[string]bool{}
	for _, q := range paths {
		in[q] = true
		for d := parentOf(q); d != ""; d = parentOf(d) {
			parent[d] = true
		}
	}
	leaves := map[string]int{}
	for _, q := range paths {
		if parent[q] {
			continue
		}
		for d := parentOf(q); d != ""; d = parentOf(d) {
			if in[d] {
				leaves[d]++
			}
		}
	}
	shown := map[string]bool{} // directories shown as one line
	for _, q := range paths {
		under := false
		for d := parentOf(q); d != "" && !under; d = parentOf(d) {
			under = shown[d]
		}
		switch n := leaves[q]; {
		case under:
		case n >= collapseMin:
			out = append(out, fmt.Sprintf("%s/ (%d file%s)", QuotePath(q), n, Plural(n)))
			shown[q] = true
		default:
			out = append(out, QuotePath(q))
		}
	}
	return out
}

// parentOf is the directory of a slash-separated path, "" at the top.
func parentOf(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ""
	}
	return p[:i]
}
