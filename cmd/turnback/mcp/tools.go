package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/envopt"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// Bounds that keep results short.
const (
	defaultTurns = 20
	maxPaths     = 200      // paths listed per result; the rest are counted in "more"
	maxDiffFile  = 16 << 10 // diff text per file
	maxDiffTotal = 64 << 10 // diff text in all
	maxCount     = 1000     // turns one undo or redo may take
)

// addTools registers every tool of s on srv.
func addTools(srv *sdk.Server, s *server) error {
	return errors.Join(
		add(srv, s, "turnback_turns", "List the turns turnback recorded in the folder (one per agent prompt), newest first: number, message, time, files added/modified/deleted; undone turns (which turnback_redo brings back) are marked.", s.turns),
		add(srv, s, "turnback_show", "What one turn changed: its paths (added, modified, deleted, ...), without contents.", s.show),
		add(srv, s, "turnback_diff", "Unified diff of what a turn changed, between two snapshots, or since the last turn.", s.diff),
		add(srv, s, "turnback_status", "What changed in the folder since the session's last snapshot (edits made since the last turn ended), without recording anything.", s.status),
		add(srv, s, "turnback_undo", "Undo the last turns of the session: only the paths they changed go back to what they held before. If a path was edited since, nothing changes and the error names it. Returns the paths changed.", s.undo),
		add(srv, s, "turnback_redo", "Bring back turns that turnback_undo undid, oldest first. Returns the paths changed.", s.redo),
	)
}

// bound sets the schema's bounds of the numbers: count (1 to maxCount),
// turn and limit (1 or more).
func bound(sch *jsonschema.Schema) {
	one, most := 1.0, float64(maxCount)
	for name, p := range sch.Properties {
		switch name {
		case "count":
			p.Minimum, p.Maximum = &one, &most
		case "turn", "limit":
			p.Minimum = &one
		}
	}
}

// add registers one tool, its input schema derived from In (with its
// bounds), and maps its errors to tool errors the model can read.
func add[In, Out any](srv *sdk.Server, s *server, name, desc string, h func(context.Context, In) (Out, error)) error {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		return fmt.Errorf("turnback mcp: schema of %s: %w", name, err)
	}
	bound(in)
	sdk.AddTool(srv, &sdk.Tool{Name: name, Description: desc, InputSchema: in},
		func(ctx context.Context, _ *sdk.CallToolRequest, args In) (*sdk.CallToolResult, Out, error) {
			s.mu.Lock()
			defer s.mu.Unlock()
			out, err := h(ctx, args)
			return nil, out, s.describe(err)
		})
	return nil
}

// describe turns an error into the text the model reads.
func (s *server) describe(err error) error {
	if err == nil {
		return nil
	}
	var ae *turnback.AmbiguousSessionError
	if errors.As(err, &ae) {
		msg := termout.AmbiguousSession(ae, envopt.Now(s.c.Getenv))
		return errors.New(strings.ReplaceAll(msg, "with --session", "with the session argument"))
	}
	var ce *turnback.ConflictError
	if errors.As(err, &ce) {
		var paths []string
		for _, n := range ce.Result.Conflicts {
			paths = append(paths, termout.QuotePath(n.Path))
		}
		what := fmt.Sprintf("%d paths were", len(paths))
		if len(paths) == 1 {
			what = "1 path was"
		}
		return fmt.Errorf("turnback: conflict: nothing was changed: %s edited since: %s; read them and ask the user, who may keep the edits, or go ahead over them (force: true, which keeps the edits in a checkpoint)",
			what, listPaths(paths))
	}
	if errors.Is(err, turnback.ErrBusy) {
		return fmt.Errorf("%v; try again when it is done", err)
	}
	if errors.Is(err, turnback.ErrDaemonLost) {
		// The undo may have run: a retry could undo a second turn.
		return fmt.Errorf("%v; the outcome is not known: the next call finishes or rolls back an interrupted undo, redo or restore, so call turns to see where the session stands before you try again", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "turnback") {
		msg = "turnback: " + msg
	}
	return errors.New(msg)
}

// listPaths joins paths, at most 20 of them.
func listPaths(paths []string) string {
	if len(paths) > 20 {
		return strings.Join(paths[:20], ", ") + fmt.Sprintf(" and %d more", len(paths)-20)
	}
	return strings.Join(paths, ", ")
}

func (s *server) turns(ctx context.Context, in TurnsIn) (TurnsOut, error) {
	var out TurnsOut
	if in.Limit < 0 {
		return out, errors.New("limit must not be negative")
	}
	c, err := s.open(ctx, common{in.Folder, in.Session}, turnback.AccessRead, true)
	if err != nil {
		return out, err
	}
	defer c.close()
	turns, redo, err := c.repo.Turns(ctx)
	if err != nil {
		return out, err
	}
	out = TurnsOut{Folder: c.repo.WorkTree(), Session: c.session.Name, Agent: c.session.Agent, Turns: []Turn{}}
	limit := in.Limit
	if limit == 0 {
		limit = defaultTurns
	}
	for i, t := range append(append([]*turnback.Turn{}, redo...), turns...) {
		if len(out.Turns) == limit {
			out.More = len(redo) + len(turns) - i
			break
		}
		out.Turns = append(out.Turns, turnOf(t, i < len(redo)))
	}
	return out, nil
}

func turnOf(t *turnback.Turn, undone bool) Turn {
	return termout.TurnDoc(t, undone)
}

// findTurn returns turn n of the session (0: the newest on the undo
// stack) and whether it is undone.
func findTurn(ctx context.Context, repo *turnback.Repo, session string, n int) (*turnback.Turn, bool, error) {
	turns, redo, err := repo.Turns(ctx)
	if err != nil {
		return nil, false, err
	}
	if n < 0 {
		return nil, false, errors.New("turn must be a positive number")
	}
	if n == 0 {
		if len(turns) == 0 {
			return nil, false, fmt.Errorf("no turns to show in session %s", termout.QuotePath(session))
		}
		return turns[0], false, nil
	}
	for i, list := range [][]*turnback.Turn{turns, redo} {
		for _, t := range list {
			if t.N == n {
				return t, i == 1, nil
			}
		}
	}
	return nil, false, fmt.Errorf("session %s has no turn %d (turnback_turns lists them)", termout.QuotePath(session), n)
}

// skippedList is skipped, at most maxPaths, and how many more.
func skippedList(skipped []turnback.Ignored) ([]Ignored, int) {
	if len(skipped) > maxPaths {
		return skipped[:maxPaths], len(skipped) - maxPaths
	}
	return skipped, 0
}

func (s *server) show(ctx context.Context, in ShowIn) (ShowOut, error) {
	var out ShowOut
	if in.Turn != 0 && in.ID != "" {
		return out, errors.New("give turn or id, not both")
	}
	c, err := s.open(ctx, common{in.Folder, in.Session}, turnback.AccessRead, true)
	if err != nil {
		return out, err
	}
	defer c.close()
	var t *turnback.Turn
	undone := false
	if in.ID != "" {
		info, err := c.repo.Show(ctx, in.ID)
		if err != nil {
			return out, err
		}
		for _, x := range info.Turns {
			if t == nil || (!x.Open() && x.After == info.ID) {
				t = x
			}
		}
		if t == nil {
			return out, fmt.Errorf("snapshot %s begins or ends no turn of session %s; turnback_diff compares any two snapshots", info.ID.Short(), termout.QuotePath(c.session.Name))
		}
	} else if t, undone, err = findTurn(ctx, c.repo, c.session.Name, in.Turn); err != nil {
		return out, err
	}
	to := ""
	if !t.Open() {
		to = t.After.String()
	}
	d, err := c.repo.Compare(ctx, t.Before.String(), to)
	if err != nil {
		return out, err
	}
	out = ShowOut{Folder: c.repo.WorkTree(), Session: c.session.Name, Turn: turnOf(t, undone)}
	out.Changes, out.More = changeList(d.Files)
	out.SkippedNow, out.SkippedMore = skippedList(d.SkippedNow)
	return out, nil
}

// changeList is the paths of diffs, at most maxPaths, and how many more.
func changeList(diffs []turnback.FileDiff) ([]Change, int) {
	out := []Change{}
	for _, d := range diffs {
		if len(out) == maxPaths {
			return out, len(diffs) - maxPaths
		}
		out = append(out, Change{Path: d.Path, What: d.What})
	}
	return out, 0
}

func (s *server) diff(ctx context.Context, in DiffIn) (DiffOut, error) {
	var out DiffOut
	if in.Turn != 0 && (in.From != "" || in.To != "") {
		return out, errors.New("give turn, or from and to, not both")
	}
	if in.Turn < 0 {
		return out, errors.New("turn must be a positive number")
	}
	if in.To != "" && in.From == "" {
		return out, errors.New("to needs from")
	}
	// Ids name states of any session; a turn reference is the session's.
	latest := in.From == "" || turnback.IsTurnRef(in.From) || turnback.IsTurnRef(in.To)
	c, err := s.open(ctx, common{in.Folder, in.Session}, turnback.AccessRead, latest)
	if err != nil {
		return out, err
	}
	defer c.close()
	from, to := in.From, in.To
	if in.Turn != 0 {
		t, _, err := findTurn(ctx, c.repo, c.session.Name, in.Turn)
		if err != nil {
			return out, err
		}
		if from = t.Before.String(); !t.Open() {
			to = t.After.String()
		}
	}
	res, err := c.repo.Compare(ctx, from, to)
	if err != nil {
		return out, err
	}
	out = DiffOut{Folder: c.repo.WorkTree(), From: res.From.String(), To: "now", Files: []DiffFile{}}
	if to != "" {
		out.To = res.To.String()
	}
	out.SkippedNow, out.SkippedMore = skippedList(res.SkippedNow)
	total := 0
	for i, d := range res.Files {
		if i == maxPaths {
			out.More = len(res.Files) - i
			break
		}
		f := DiffFile{Path: d.Path, Change: d.What}
		text, binary := termout.Unified(d)
		f.Binary = binary
		switch {
		case len(text) > maxDiffFile || total+len(text) > maxDiffTotal:
			out.Truncated = true
		default:
			f.Diff, total = text, total+len(text)
		}
		out.Files = append(out.Files, f)
	}
	return out, nil
}

func (s *server) status(ctx context.Context, in StatusIn) (StatusOut, error) {
	var out StatusOut
	c, err := s.open(ctx, common{in.Folder, in.Session}, turnback.AccessReadPreferWrite, true)
	if err != nil {
		return out, err
	}
	defer c.close()
	st, err := c.repo.Status(ctx)
	if err != nil {
		return out, err
	}
	out = StatusOut{Folder: c.repo.WorkTree(), Session: c.session.Name, Changes: []Change{}}
	out.SkippedNow, out.SkippedMore = skippedList(st.SkippedNow)
	if !st.Base.IsZero() {
		out.Base = st.Base.String()
	}
	for i, ch := range st.Changes {
		if i == maxPaths {
			out.More = len(st.Changes) - i
			break
		}
		out.Changes = append(out.Changes, Change{Path: ch.Path, What: ch.What})
	}
	return out, nil
}

func (s *server) undo(ctx context.Context, in UndoIn) (RestoreOut, error) {
	o := turnback.UndoOptions{Force: in.Force, Paths: in.Paths, DryRun: in.DryRun}
	return s.restore(ctx, common{in.Folder, in.Session}, in.Count, "undo", func(r *turnback.Repo, n int) (*turnback.RestoreResult, error) {
		return r.Undo(ctx, n, o)
	})
}

func (s *server) redo(ctx context.Context, in RedoIn) (RestoreOut, error) {
	o := turnback.RedoOptions{Force: in.Force, DryRun: in.DryRun}
	return s.restore(ctx, common{in.Folder, in.Session}, in.Count, "redo", func(r *turnback.Repo, n int) (*turnback.RestoreResult, error) {
		return r.Redo(ctx, n, o)
	})
}

// restore runs undo or redo (op, named verb) for count turns and
// reports it; a dry run's preview is reported as what would be done.
func (s *server) restore(ctx context.Context, a common, n int, verb string, op func(*turnback.Repo, int) (*turnback.RestoreResult, error)) (RestoreOut, error) {
	var out RestoreOut
	switch {
	case n == 0:
		n = 1
	case n < 1 || n > maxCount:
		return out, fmt.Errorf("count must be 1 to %d, got %d", maxCount, n)
	}
	c, err := s.open(ctx, a, turnback.AccessWrite, true)
	if err != nil {
		return out, err
	}
	defer c.close()
	res, err := op(c.repo, n)
	var ce *turnback.ConflictError
	if errors.As(err, &ce) && ce.Result != nil && ce.Result.DryRun != nil {
		res, err = ce.Result, nil // a dry run that would stop: its preview says so
	}
	if err != nil {
		return out, err
	}
	out = RestoreOut{Folder: c.repo.WorkTree(), Session: c.session.Name, Turns: res.Turns,
		Restored: []string{}, Deleted: []string{}, Created: []string{}}
	if res.Nothing {
		out.DryRun = res.DryRun != nil
		out.Summary = "nothing to " + verb + " in session " + termout.QuotePath(c.session.Name)
		return out, nil
	}
	restored, deleted, created, conflicts, unrestored, paths := res.Restored, res.Deleted, res.Created, res.Conflicts, res.Unrestored(), res.Paths
	if p := res.DryRun; p != nil {
		out.DryRun, out.Stopped, out.Turns = true, p.Stopped, p.Turns
		restored, deleted, created, conflicts, paths = p.Restored, p.Deleted, p.Created, p.Conflicts, p.Paths
		unrestored = (&turnback.RestoreResult{NotRestorable: p.NotRestorable}).Unrestored()
	}
	left := maxPaths
	clip := func(paths []string) []string {
		k := min(len(paths), left)
		left -= k
		out.More += len(paths) - k
		return append([]string{}, paths[:k]...)
	}
	out.Restored, out.Deleted, out.Created = clip(restored), clip(deleted), clip(created)
	if len(paths) > 0 {
		out.Paths = clip(paths)
	}
	for _, p := range conflicts {
		note := Note{p.Path, p.Reason}
		if out.DryRun {
			out.Conflicts = append(out.Conflicts, note)
		} else {
			out.Overwritten = append(out.Overwritten, note)
		}
	}
	for _, p := range unrestored {
		out.NotRestorable = append(out.NotRestorable, Note{p.Path, p.Reason})
	}
	if !res.Checkpoint.IsZero() {
		out.Checkpoint = res.Checkpoint.String()
	}
	out.Summary = summary(verb, out, len(restored), len(deleted), len(created))
	return out, nil
}

// summary is the one sentence of an undo's or redo's result.
func summary(verb string, out RestoreOut, restored, deleted, created int) string {
	done := map[string]string{"undo": "undid", "redo": "redid"}[verb]
	what := fmt.Sprintf("%d %s", out.Turns, plural(out.Turns, "turn"))
	if len(out.Paths) > 0 {
		what = "paths of the last " + what
	}
	counts := fmt.Sprintf("%d restored, %d deleted, %d brought back", restored, deleted, created)
	var b strings.Builder
	switch {
	case out.Stopped:
		fmt.Fprintf(&b, "dry run: the %s would stop, changing nothing: %d %s edited since (listed in conflicts); force would overwrite them, keeping the edits in a checkpoint",
			verb, len(out.Conflicts), plural(len(out.Conflicts), "path"))
	case out.DryRun:
		fmt.Fprintf(&b, "dry run, nothing changed: %s of %s would do: %s", verb, what, counts)
	default:
		fmt.Fprintf(&b, "%s %s: %s", done, what, counts)
	}
	if len(out.NotRestorable) > 0 {
		fmt.Fprintf(&b, "; %d not restorable (listed)", len(out.NotRestorable))
	}
	if !out.DryRun {
		b.WriteString("; read these paths again before relying on them")
	}
	return b.String()
}
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
