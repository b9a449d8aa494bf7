package restore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/turnback/turnback/manifest"
)

// Rollback puts back what an interrupted restore (one whose journal is
// in JournalDir) changed: every path it replaced, removed or created
// returns to what the journal recorded before it, and the restore's
// staged and held files go. Paths edited since the interruption (neither
// the restore's before nor its after) are left as they are and reported
// as Kept. The caller's metadata is not committed: the operation never
// happened. Rollback is itself all or nothing: it plans the way back and
// applies it as a restore whose journal replaces the interrupted one (a
// crash during it is finished by Recover). It reports whether there was
// a journal. A restore stopped after it began to commit the caller's
// metadata is finished instead, and Rollback returns ErrCommitted.
// ErrCommitted: Rollback found the interrupted restore past the commit
// of the caller's metadata; it finished the restore instead.
var ErrCommitted = errors.New("restore: the interrupted restore had recorded its result: it was finished, not rolled back")

func Rollback(ctx context.Context, root *os.Root, opts Options) (*Result, bool, error) {
	j := &journal{}
	ok, err := readJSON(joinPath(opts.JournalDir, journalName), j)
	if err != nil || !ok {
		return nil, false, err
	}
	done := &journal{}
	if ok, err := readJSON(joinPath(opts.JournalDir, committedName), done); err != nil {
		return nil, true, err
	} else if ok && done.ID == j.ID && !j.Rollback {
		// The caller's metadata may say it happened: finish it.
		if _, err := Recover(ctx, root, opts); err != nil {
			return nil, true, err
		}
		return nil, true, ErrCommitted
	}
	if j.Rollback {
		// A rollback interrupted in turn: finish it.
		if _, err := Recover(ctx, root, opts); err != nil {
			return nil, true, err
		}
		return &Result{}, true, nil
	}
	d := newDirs(root)
	st := &staging{}
	if sok, err := readJSON(joinPath(opts.JournalDir, stagingName), st); err == nil && sok && st.ID != j.ID {
		unstage(d, st.Files)
	}
	back := opts
	back.Save, back.verify = nil, true // nothing found is taken away: it is put back or left
	x := &run{ctx: ctx, d: d, j: j, opts: &back}
	var inverse []Action
	var kept []Skipped
	for i, ja := range j.Actions {
		_, name := manifest.SplitPath(ja.Path)
		old, err := fromJ(name, ja.Old)
		if err != nil {
			d.close()
			return nil, true, err
		}
		nw, err := fromJ(name, ja.New)
		if err != nil {
			d.close()
			return nil, true, err
		}
		if err := validPath(ja.Path); err != nil {
			d.close()
			return nil, true, err
		}
		a := &Action{Path: ja.Path, Old: old, New: nw}
		if err := x.unwind(i, a, ja.Stage); err != nil {
			d.close()
			return nil, true, fmt.Errorf("restore: roll back %s: %w", a.Path, err)
		}
		isOld, err := onDisk(ctx, d, a.Path, a.Old)
		if err != nil {
			d.close()
			return nil, true, err
		}
		if isOld {
			if a.Old != nil && a.New != nil && a.Old.Mode != a.New.Mode {
				// Content is back; permission bits may not be.
				inverse = append(inverse, Action{Path: a.Path, Old: a.Old, New: a.Old})
			}
			continue
		}
		isNew, err := onDisk(ctx, d, a.Path, a.New)
		if err != nil {
			d.close()
			return nil, true, err
		}
		gone, err := onDisk(ctx, d, a.Path, nil)
		if err != nil {
			d.close()
			return nil, true, err
		}
		switch {
		case isNew:
			inverse = append(inverse, Action{Path: a.Path, Old: a.New, New: a.Old})
		case gone && a.Old != nil:
			inverse = append(inverse, Action{Path: a.Path, New: a.Old})
		default:
			kept = append(kept, Skipped{Path: a.Path, Reason: "changed after the interrupted restore; left as is"})
		}
	}
	d.close()
	plan, err := NewPlan(ctx, root, inverse)
	if err != nil {
		return nil, true, err
	}
	back = opts
	back.Save, back.Amend, back.Meta, back.rollback = nil, nil, nil, true
	res, err := Apply(ctx, root, plan, back)
	if err != nil {
		return nil, true, err
	}
	res.Kept = append(append(res.Kept, plan.Blocked...), append(plan.Kept, kept...)...)
	return res, true, nil
}

// unwind undoes what a run of action i did to names of its own: an
// exchange that was done (the staged file or new link is at the path,
// what was there under our name) is exchanged back; what a removal held
// aside goes back to its path if that is free; the rest of our names are
// removed when they hold the action's Old or New (both are in the store),
// and otherwise left.
func (x *run) unwind(i int, a *Action, stage string) error {
	dir, name := manifest.SplitPath(a.Path)
	tr, err := x.d.get(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrEscape) {
			// The path's directory is not there: only a staged file
			// (staged higher up) can be left.
			if stage == "" {
				return nil
			}
			if err := x.settle(stage, a); err != nil && !errors.Is(err, errCannotSave) {
				return err
			}
			return nil
		}
		return err
	}
	isNew, err := onDisk(x.ctx, x.d, a.Path, a.New)
	if err != nil {
		return err
	}
	for _, ours := range []string{stage, manifest.JoinPath(dir, linkName(x.j.ID, i))} {
		if ours == "" || !isNew || a.New == nil {
			continue
		}
		odir, oname := manifest.SplitPath(ours)
		or, err := x.d.get(odir)
		if err != nil {
			continue
		}
		if _, err := or.Lstat(oname); err != nil {
			continue
		}
		if err := writable(x.d, dir, func() error { return exchange(or, oname, tr, name) }); err != nil && !errors.Is(err, errNoExchange) {
			return err
		}
		break
	}
	held := manifest.JoinPath(dir, heldName(x.j.ID, i))
	if _, err := tr.Lstat(heldName(x.j.ID, i)); err == nil {
		if _, err := tr.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			if err := writable(x.d, dir, func() error { return x.move(held, a.Path) }); err != nil {
				return err
			}
		}
	}
	for _, ours := range []string{held, manifest.JoinPath(dir, linkName(x.j.ID, i)), stage} {
		if ours == "" {
			continue
		}
		if err := x.settle(ours, a); err != nil && !errors.Is(err, errCannotSave) {
			return err
		}
	}
	return nil
}
