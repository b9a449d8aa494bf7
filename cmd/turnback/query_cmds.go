package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

var changeMarks = map[turnback.ChangeKind]string{
	turnback.Added: "A", turnback.Deleted: "D", turnback.Modified: "M",
	turnback.ModeChanged: "P", turnback.TypeChanged: "T",
}

func newStatusCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "List what changed since the session's last snapshot",
		Long: `status captures the folder and lists every path that differs from the
session's last snapshot (the open turn's before-state, or the last turn's
after-state). Marks: A added, M modified, D deleted, P permissions changed,
T type changed (file, directory, symlink). It records no turn.`,
		Example: `  turnback status
  turnback --json status`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withRepo(cmd, turnback.AccessReadPreferWrite, func(repo *turnback.Repo) error {
				st, err := repo.Status(cmd.Context())
				if errors.Is(err, turnback.ErrNoSpace) && !repo.ReadOnly() && g.served == nil {
					// The disk filled during the capture: compare without
					// keeping anything instead.
					repo.Close()
					if repo, err = g.openRepo(cmd, turnback.AccessRead); err != nil {
						return err
					}
					defer repo.Close()
					st, err = repo.Status(cmd.Context())
				}
				g.endProgress()
				if err != nil {
					return err
				}
				g.noteCapture(st.Stats.Files, st.Stats.Dirs)
				if g.json {
					doc := map[string]any{"base": idOrEmpty(st.Base.IsZero(), st.Base.String()), "current": st.Current.String(),
						"session": repo.Session(), "changes": changeDocs(st.Changes), "stats": statsDoc(st.Stats, st.Watch)}
					termout.WriteJSON(g.stdout, doc)
					return nil
				}
				if st.Base.IsZero() {
					fmt.Fprintf(g.stdout, "session %s has no snapshot yet: everything is new\n", repo.Session())
				}
				color := g.useColor()
				for _, c := range st.Changes {
					mark := changeMarks[c.Kind]
					fmt.Fprintf(g.stdout, "%s %s\n", termout.Paint(color, termout.MarkColor(mark), mark), termout.QuotePath(c.Path+dirSlash(c.New, c.Old)))
				}
				if len(st.Changes) == 0 && !st.Base.IsZero() {
					fmt.Fprintln(g.stdout, "no changes since", st.Base.Short())
				}
				return nil
			})
		},
	}
}

func dirSlash(a, b *turnback.Entry) string {
	e := a
	if e == nil {
		e = b
	}
	if e != nil && e.Kind == turnback.KindDir {
		return "/"
	}
	return ""
}

func idOrEmpty(empty bool, s string) string {
	if empty {
		return ""
	}
	return s
}

type turnJSON struct {
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
	// bring back (unprotected.go).
	Unprotected []string `json:"unprotected,omitempty"`
}

func turnDoc(t *turnback.Turn, undone bool) turnJSON {
	d := turnJSON{Turn: t.N, Before: t.Before.String(), Open: t.Open(), Undone: undone, Started: t.Started.Format(time.RFC3339),
		ClosedBy: t.ClosedBy, Message: t.Message, Added: t.Added, Modified: t.Modified, Deleted: t.Deleted}
	if !t.Open() {
		d.After = t.After.String()
		d.Ended = t.Ended.Format(time.RFC3339)
	}
	return d
}

func newLogCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "log",
		Short: "List the session's turns, newest first",
		Long: `log lists the session's turns newest first: turn number, the snapshot id of
the state after the turn (before-state for an open turn), when it started,
+added ~modified -deleted counts, and its message. Undone turns waiting to be
redone are listed first, marked "undone".`,
		Example: `  turnback log
  turnback --session agent-2 log
  turnback --json log`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) error {
				turns, redo, err := repo.Turns(cmd.Context())
				if err != nil {
					return err
				}
				lost, err := repo.UnprotectedChanges(cmd.Context(), append(append([]*turnback.Turn{}, turns...), redo...))
				if err != nil {
					return err
				}
				if g.json {
					docs := []turnJSON{}
					for _, t := range redo {
						docs = append(docs, turnDoc(t, true))
						docs[len(docs)-1].Unprotected = lost[t.N]
					}
					for _, t := range turns {
						docs = append(docs, turnDoc(t, false))
						docs[len(docs)-1].Unprotected = lost[t.N]
					}
					termout.WriteJSON(g.stdout, map[string]any{"session": repo.Session(), "turns": docs})
					return nil
				}
				if len(turns)+len(redo) == 0 {
					fmt.Fprintf(g.stdout, "no turns in session %s\n", repo.Session())
					return nil
				}
				line := func(t *turnback.Turn, undone bool) {
					id, counts := t.Before.Short(), "(open)"
					if !t.Open() {
						id, counts = t.After.Short(), fmt.Sprintf("+%d ~%d -%d", t.Added, t.Modified, t.Deleted)
					}
					if undone {
						counts += " undone"
					}
					l := fmt.Sprintf("%4d  %s  %s  %-16s %s", t.N, id, t.Started.In(g.location()).Format("2006-01-02 15:04:05"), counts, termout.SafeText(t.Message))
					l += termout.UnprotectedNote(lost[t.N])
					fmt.Fprintln(g.stdout, strings.TrimRight(l, " "))
				}
				for _, t := range redo {
					line(t, true)
				}
				for _, t := range turns {
					line(t, false)
				}
				return nil
			})
		},
	}
}

type entryJSON struct {
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

func newShowCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Describe a snapshot and list its paths",
		Long: `show prints a snapshot's id, its size, the session's turns that start or end
at it, and every path it holds with kind, permission bits and size. ID is
any unique prefix of a snapshot id (as printed by snap, end and log).`,
		Example: `  turnback show 3f2a9c
  turnback --json show 3f2a9c`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) error {
				info, err := repo.Show(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				if g.json {
					ents := []entryJSON{}
					for _, pe := range info.Entries {
						e := pe.Entry
						ej := entryJSON{Path: pe.Path, PathBytes: termout.JSONBytes(pe.Path), Kind: e.Kind.String(), Mode: fmt.Sprintf("%04o", e.Mode), Size: e.Size,
							Target: e.Target, TargetBytes: termout.JSONBytes(e.Target), Uncaptured: e.Uncaptured, Files: e.Files}
						if !e.Hash.IsZero() && e.Kind == turnback.KindFile {
							ej.Hash = e.Hash.String()
						}
						ents = append(ents, ej)
					}
					turns := []turnJSON{}
					for _, t := range info.Turns {
						turns = append(turns, turnDoc(t, false))
					}
					termout.WriteJSON(g.stdout, map[string]any{"snapshot": info.ID.String(), "files": info.Files, "bytes": info.Bytes, "turns": turns, "entries": ents})
					return nil
				}
				fmt.Fprintf(g.stdout, "snapshot %s\n%d files, %s\n", info.ID.String(), info.Files, termout.HumanBytes(info.Bytes))
				for _, t := range info.Turns {
					role := "before"
					if !t.Open() && t.After == info.ID {
						role = "after"
					}
					if t.Message == "" {
						fmt.Fprintf(g.stdout, "%s turn %d\n", role, t.N)
					} else {
						fmt.Fprintf(g.stdout, "%s turn %d: %s\n", role, t.N, termout.SafeText(t.Message))
					}
				}
				fmt.Fprintln(g.stdout)
				for _, pe := range info.Entries {
					e := pe.Entry
					extra := ""
					switch {
					case e.Kind == turnback.KindSymlink:
						extra = " -> " + termout.QuotePath(e.Target)
					case e.Uncaptured && e.Kind == turnback.KindDir:
						extra = fmt.Sprintf(" (not captured: %d files)", e.Files)
					case e.Uncaptured:
						extra = " (not captured)"
					}
					name := pe.Path
					if e.Kind == turnback.KindDir {
						name += "/"
					}
					fmt.Fprintf(g.stdout, "%-7s %04o %10d  %s%s\n", e.Kind, e.Mode, e.Size, termout.QuotePath(name), extra)
				}
				return nil
			})
		},
	}
}

func newDiffCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "diff [A [B]]",
		Short: "Show a unified diff between snapshots or the folder now",
		Long: `diff prints a unified diff. With no ids it compares the session's last
snapshot with the folder now; with one id, that snapshot with the folder now;
with two, snapshot A with snapshot B. Binary files are named, not dumped;
permission changes are shown as "old mode"/"new mode" lines.`,
		Example: `  turnback diff             # what changed since the last snap
  turnback diff 3f2a9c      # since snapshot 3f2a9c
  turnback diff 3f2a 8b1c   # between two snapshots`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var a, b string
			if len(args) > 0 {
				a = args[0]
			}
			if len(args) > 1 {
				b = args[1]
			}
			return g.withRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) error {
				from, to, diffs, err := repo.Diff(cmd.Context(), a, b)
				g.endProgress()
				if err != nil {
					return err
				}
				if g.json {
					var docs []map[string]any
					for _, d := range diffs {
						doc := map[string]any{"path": d.Path, "change": d.What}
						if b := termout.JSONBytes(d.Path); b != "" {
							doc["path_bytes"] = b
						}
						if text, binary := termout.Unified(d); binary {
							doc["binary"] = true
						} else if text != "" {
							doc["diff"] = text
						}
						docs = append(docs, doc)
					}
					termout.WriteJSON(g.stdout, map[string]any{"from": idOrEmpty(from.IsZero(), from.String()), "to": to.String(), "files": termout.NonNil(docs)})
					return nil
				}
				color := g.useColor()
				for _, d := range diffs {
					text, _ := termout.Unified(d)
					if color {
						text = termout.ColorDiff(text)
					}
					fmt.Fprint(g.stdout, text)
				}
				return nil
			})
		},
	}
}

func newVerifyCmd(g *globals) *cobra.Command {
	var repair bool
	c := &cobra.Command{
		Use:   "verify [--repair]",
		Short: "Re-read and re-hash everything the store holds",
		Long: `verify reads every tree and every file content reachable from any recorded
snapshot and checks it against its hash; a file over the size limit is
read back from a reference recorded for it (Git LFS object, git blob or
clone), which must still give exactly that content. Damage is listed by
snapshot and path, and verify exits 1. Without --repair nothing is changed (the store is
opened read-only).

--repair rebuilds a store whose database metadata (Badger's MANIFEST) is
missing or damaged, which every other command refuses to open: the damaged
database is moved, whole, to damaged-<time>/ in the store (nothing is
deleted), a new one is built from every record its table files and
memtable logs still hold, with links to its pack files, and then everything
is verified as above. What could not be read is listed.`,
		Example: `  turnback verify
  turnback --json verify
  turnback verify --repair`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if repair {
				return g.runRepair(cmd)
			}
			return g.withRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) error {
				res, err := repo.Verify(cmd.Context())
				if err != nil && !errors.Is(err, turnback.ErrVerify) {
					return err
				}
				if g.json && err == nil {
					// Every field of the result, with problems carrying
					// path_bytes.
					termout.WriteJSON(g.stdout, struct {
						*turnback.VerifyResult
						Problems []problemJSON `json:"problems"`
					}{res, problemDocs(res.Problems)})
					return nil
				}
				for _, p := range res.Problems {
					fmt.Fprintf(g.stderr, "turnback: snapshot %s: %s: %s\n", p.Snapshot[:12], termout.DisplayPath(p.Path), termout.SafeText(p.Err))
				}
				if err != nil {
					return codedError{code: exitError, err: verifyFailure{res: res, err: err}}
				}
				fmt.Fprintf(g.stdout, "ok: %d snapshots, %d trees, %d file contents verified", res.Snapshots, res.Trees, res.Contents)
				if res.References > 0 {
					fmt.Fprintf(g.stdout, " (%d read back by reference)", res.References)
				}
				fmt.Fprintln(g.stdout)
				return nil
			})
		},
	}
	c.Flags().BoolVar(&repair, "repair", false, "rebuild a store whose database metadata is missing or damaged (nothing is deleted), then verify")
	return c
}

type verifyFailure struct {
	res *turnback.VerifyResult
	err error
}

func (v verifyFailure) Error() string { return v.err.Error() }
func (v verifyFailure) jsonDoc() map[string]any {
	return map[string]any{"snapshots": v.res.Snapshots, "trees": v.res.Trees, "contents": v.res.Contents, "references": v.res.References, "problems": problemDocs(v.res.Problems)}
}

// changeJSON is one change in status --json: path_bytes carries a path
// that is not valid UTF-8 exactly (see quote.go).
type changeJSON struct {
	Path      string `json:"path"`
	PathBytes string `json:"path_bytes,omitempty"`
	Change    string `json:"change"`
}

func changeDocs(cs []turnback.Change) []changeJSON {
	out := []changeJSON{}
	for _, c := range cs {
		out = append(out, changeJSON{Path: c.Path, PathBytes: termout.JSONBytes(c.Path), Change: c.What})
	}
	return out
}

type problemJSON struct {
	Snapshot  string `json:"snapshot"`
	Path      string `json:"path"`
	PathBytes string `json:"path_bytes,omitempty"`
	Err       string `json:"error"`
}

func problemDocs(ps []turnback.VerifyProblem) []problemJSON {
	out := []problemJSON{}
	for _, p := range ps {
		out = append(out, problemJSON{Snapshot: p.Snapshot, Path: p.Path, PathBytes: termout.JSONBytes(p.Path), Err: p.Err})
	}
	return out
}
