package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
)

// action is one undo, redo or restore as the library runs it.
type action struct {
	kind    string // "undo", "redo" or "restore"
	session string
	count   int
	paths   []string
	merge   turnback.MergeMode
	force   bool
	id      string // restore: the snapshot
	what    string // the action in words
}

// run runs a (dry: its plan only, on a read-only store). A conflict's
// result comes back with the error.
func (a action) run(ctx context.Context, f *Folder, dry bool) (*turnback.RestoreResult, error) {
	do := f.write
	if dry {
		do = f.read
	}
	var res *turnback.RestoreResult
	err := do(ctx, a.session, func(repo *turnback.Repo) error {
		var err error
		switch a.kind {
		case "undo":
			res, err = repo.Undo(ctx, a.count, turnback.UndoOptions{Force: a.force, Paths: a.paths, DryRun: dry, Merge: a.merge})
		case "redo":
			res, err = repo.Redo(ctx, a.count, turnback.RedoOptions{Force: a.force, DryRun: dry})
		case "restore":
			res, err = repo.Restore(ctx, a.id, turnback.RestoreOptions{DryRun: dry})
		}
		return err
	})
	var ce *turnback.ConflictError
	if errors.As(err, &ce) && res == nil {
		res = ce.Result
	}
	return res, err
}

func (m *Model) planCmd(a action) tea.Cmd {
	f, ctx := m.cfg.Folder, m.ctx
	m.message = "planning: " + a.what + " …"
	return func() tea.Msg {
		res, err := a.run(ctx, f, true)
		return planMsg{a: a, res: res, err: err}
	}
}

func (m *Model) runCmd(a action) tea.Cmd {
	f, ctx := m.cfg.Folder, m.ctx
	m.message = "running: " + a.what + " …"
	return func() tea.Msg {
		res, err := a.run(ctx, f, false)
		return doneMsg{a: a, res: res, err: err}
	}
}

// startAction begins the action of key u, r, p or m on the selection:
// its plan comes first.
func (m *Model) startAction(key string) tea.Cmd {
	if m.cur >= len(m.rows) || m.tl == nil {
		return nil
	}
	r := m.rows[m.cur]
	if key == "r" {
		return m.startRedo(r)
	}
	if r.kind != rowTurn {
		m.message = "select a turn: " + map[string]string{"u": "u undoes back to before it", "p": "p undoes the selected path of it", "m": "m undoes it keeping your edits"}[key]
		return nil
	}
	if r.undone {
		m.message = fmt.Sprintf("turn %d is undone already: r redoes it", r.turn.N)
		return nil
	}
	s := m.tl.sessions[r.sess].info
	a := action{kind: "undo", session: s.Name, count: r.count}
	a.what = fmt.Sprintf("undo %s of session %s, back to before turn %d", turnsWord(r.count), termout.SafeText(s.Name), r.turn.N)
	switch key {
	case "p":
		rows := m.pathRows()
		if m.turns[m.want] == nil || m.pcur >= len(rows) {
			m.message = "select a path of the turn first (tab to the paths)"
			return nil
		}
		p := rows[m.pcur].path
		if rows[m.pcur].note != "" {
			m.message = termout.QuotePath(p) + " is skipped now, not changed: undo leaves it as it is"
			return nil
		}
		a.paths = []string{p}
		shown := termout.QuotePath(p)
		if rows[m.pcur].dir {
			shown += "/"
		}
		a.what = fmt.Sprintf("undo %s of %s, back to before turn %d", shown, turnsWord(r.count), r.turn.N)
	case "m":
		a.merge = turnback.MergeClean
		a.what += ", keeping your edits"
	}
	return m.planCmd(a)
}

func (m *Model) startRedo(r row) tea.Cmd {
	sess := -1
	count := 1
	switch {
	case r.kind == rowTurn && r.undone:
		sess, count = r.sess, r.count
	case r.kind != rowWork:
		sess = r.sess
	default:
		for i, s := range m.tl.sessions {
			if s.info.Name == m.cfg.Session {
				sess = i
			}
		}
	}
	if sess < 0 || len(m.tl.sessions[sess].redo) == 0 {
		m.message = "nothing to redo"
		return nil
	}
	name := m.tl.sessions[sess].info.Name
	a := action{kind: "redo", session: name, count: count,
		what: fmt.Sprintf("redo %s of session %s", turnsWord(count), termout.SafeText(name))}
	return m.planCmd(a)
}

func turnsWord(n int) string {
	if n == 1 {
		return "1 turn"
	}
	return fmt.Sprintf("%d turns", n)
}

// planned shows a plan to confirm, a conflict with its choices, or why
// there is nothing to do.
func (m *Model) planned(msg planMsg) tea.Cmd {
	m.message = ""
	var ce *turnback.ConflictError
	switch {
	case errors.As(msg.err, &ce):
		m.modal = conflictModal(msg.a, msg.res)
	case msg.err != nil:
		m.modal = errorModal(msg.a.what, msg.err)
	case msg.res.Nothing:
		m.message = map[string]string{"undo": "nothing to undo", "redo": "nothing to redo", "restore": "nothing to restore"}[msg.a.kind]
	default:
		m.modal = planModal(msg.a, msg.res)
	}
	return nil
}

// done reports a finished action and reloads.
func (m *Model) done(msg doneMsg) tea.Cmd {
	m.message = ""
	var ce *turnback.ConflictError
	switch {
	case errors.As(msg.err, &ce):
		// Edited between the plan and the action: nothing changed.
		m.modal = conflictModal(msg.a, msg.res)
	case msg.err != nil:
		m.modal = errorModal(msg.a.what, msg.err)
	case msg.res.Nothing:
		m.message = "nothing to " + msg.a.kind
	default:
		m.message = resultLine(msg.a, msg.res)
	}
	clear(m.turns)
	return tea.Batch(m.loadCmd(), m.workCmd())
}

// resultLine sums up what an action did, and the way back.
func resultLine(a action, res *turnback.RestoreResult) string {
	verb := map[string]string{"undo": "undid", "redo": "redid", "restore": "restored"}[a.kind]
	var parts []string
	for _, p := range []struct {
		n    int
		word string
	}{{len(res.Restored), "rewritten"}, {len(res.Deleted), "removed"}, {len(res.Created), "brought back"}, {len(res.Merged), "merged"}, {len(res.Markers), "with conflict markers"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.word))
		}
	}
	s := verb
	if a.kind != "restore" {
		s += " " + turnsWord(res.Turns)
	}
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	if !res.Checkpoint.IsZero() {
		s += "; checkpoint " + res.Checkpoint.Short() + " (c lists it)"
	}
	if n := len(res.Unrestored()); n > 0 {
		s += fmt.Sprintf("; %d not restorable", n)
	}
	return s
}
