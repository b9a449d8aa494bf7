package restore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
)

// finish applies a committed journal. Every step looks at the disk first,
// so running it again after a crash at any point converges on the same
// result. An error leaves the journal in place: the restore is not done
// until a later finish (or a rollback) completes it.
func finish(ctx context.Context, d *dirs, j *journal, opts *Options) (*Result, error) {
	type act struct {
		Action
		stage string
	}
	acts := make([]act, len(j.Actions))
	for i, ja := range j.Actions {
		_, name := manifest.SplitPath(ja.Path)
		old, err := fromJ(name, ja.Old)
		if err != nil {
			return nil, err
		}
		nw, err := fromJ(name, ja.New)
		if err != nil {
			return nil, err
		}
		if err := validPath(ja.Path); err != nil {
			return nil, err
		}
		if ja.Stage != "" {
			if err := validPath(ja.Stage); err != nil {
				return nil, fmt.Errorf("restore: journal: bad staging name: %w", err)
			}
			if _, name := manifest.SplitPath(ja.Stage); !strings.HasPrefix(name, stagePrefix) {
				return nil, fmt.Errorf("restore: journal: staging name %q is not ours", ja.Stage)
			}
		}
		acts[i] = act{Action{Path: ja.Path, Old: old, New: nw}, ja.Stage}
	}
	x := &run{ctx: ctx, d: d, j: j, opts: opts}
	res := &Result{}
	// skip holds actions left alone, with why. When recovering, a path
	// that is neither what the restore found nor what it was to become
	// was edited after the crash: it is kept as it is. A step that finds
	// something it must not take away (leftAsIs) is skipped too.
	skip := map[int]string{}
	if opts.verify {
		for i := range acts {
			a := &acts[i]
			isOld, err := onDisk(ctx, d, a.Path, a.Old)
			if err != nil {
				return nil, err
			}
			isNew, err := onDisk(ctx, d, a.Path, a.New)
			if err != nil {
				return nil, err
			}
			// Absent is the state between taking away the old thing and
			// putting the new one in place.
			between := a.removes() && a.New != nil
			if between {
				if gone, err := onDisk(ctx, d, a.Path, nil); err != nil {
					return nil, err
				} else if gone {
					continue
				}
			}
			if !isOld && !isNew && a.Old != nil {
				// The rename-aside fallback stopped between its two
				// renames: what was there is held, the path is empty.
				dir, _ := manifest.SplitPath(a.Path)
				if gone, err := onDisk(ctx, d, a.Path, nil); err == nil && gone {
					if fi, err := d.lstat(manifest.JoinPath(dir, heldName(j.ID, i))); err == nil && sameKind(fi.Mode(), a.Old.Kind) {
						continue
					}
				}
			}
			if !isOld && !isNew {
				skip[i] = "changed after an interrupted restore; left as is"
				// What a step of the interrupted run took out, or staged,
				// goes (saved first if it is neither Old nor New).
				if err := x.settleAll(i, &a.Action, a.stage); err != nil {
					return nil, fmt.Errorf("restore: %s: %w", a.Path, err)
				}
			}
		}
	}
	failed := func(i int, err error) error {
		var left *leftAsIs
		if errors.As(err, &left) {
			skip[i] = left.reason
			return nil
		}
		return err
	}
	// 1. Take away what must go, deepest first.
	for i := len(acts) - 1; i >= 0; i-- {
		a := &acts[i]
		if !a.removes() || skip[i] != "" {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := opts.step("remove " + a.Path); err != nil {
			return nil, err
		}
		kept, err := x.removeOld(i, &a.Action)
		if err != nil {
			if err := failed(i, err); err != nil {
				return nil, fmt.Errorf("restore: remove %s: %w", a.Path, err)
			}
			continue
		}
		if kept != "" {
			res.Kept = append(res.Kept, Skipped{Path: a.Path, Reason: kept})
		}
	}
	// 2. Put the new things in place, shallowest first.
	for i := range acts {
		a := &acts[i]
		if a.New == nil || skip[i] != "" {
			continue
		}
		if err := opts.step("place " + a.Path); err != nil {
			return nil, err
		}
		if err := x.place(i, &a.Action, a.stage); err != nil {
			if err := failed(i, err); err != nil {
				return nil, fmt.Errorf("restore: %s: %w", a.Path, err)
			}
		}
	}
	// 3. Permission bits: files, then directories deepest first (a
	// directory without write permission must be filled before).
	for i := len(acts) - 1; i >= 0; i-- {
		a := &acts[i]
		if a.New == nil || skip[i] != "" || a.stage != "" {
			continue // staged with its owner and mode
		}
		r, name, err := d.leaf(a.Path)
		if err == nil {
			err = setMeta(r, name, d, a.Path, a.New) // owner, then mode (owner.go)
		}
		if err != nil {
			return nil, fmt.Errorf("restore: chmod %s: %w", a.Path, err)
		}
	}
	// 4. The changes made durable before the commit and the journal's
	// removal: each directory whose entries changed is synced.
	if err := syncDirs(ctx, d, changedDirs(j, skip), opts.syncFile); err != nil {
		return nil, err
	}
	displaced, err := j.displaced()
	if err != nil {
		return nil, err
	}
	if err := opts.step("commit"); err != nil {
		return nil, err
	}
	if !j.Rollback {
		// From here on the caller's metadata may be recorded: a
		// rollback would leave it saying the restore happened.
		if err := markCommitted(opts.JournalDir, j); err != nil {
			return nil, err
		}
		meta := opts.Meta
		if len(displaced) > 0 && opts.Amend != nil {
			if meta, err = opts.Amend(ctx, meta, displaced); err != nil {
				return nil, err
			}
		}
		if err := opts.Commit(ctx, meta); err != nil {
			return nil, err
		}
	}
	if err := opts.step("clear journal"); err != nil {
		return nil, err
	}
	if err := removeDurable(opts.JournalDir, journalName); err != nil {
		return nil, err
	}
	_ = removeName(opts.JournalDir, committedName) // stale: another ID than the next journal's
	res.Displaced = displaced
	for i := range acts {
		if why := skip[i]; why != "" {
			res.Kept = append(res.Kept, Skipped{Path: acts[i].Path, Reason: why})
		}
	}
	keptSet := map[string]bool{}
	for _, k := range res.Kept {
		keptSet[k.Path] = true
	}
	for _, a := range acts {
		switch {
		case keptSet[a.Path]:
		case a.New == nil:
			res.Deleted = append(res.Deleted, a.Path)
		case a.Old == nil:
			res.Created = append(res.Created, a.Path)
		default:
			res.Restored = append(res.Restored, a.Path)
		}
	}
	res.placed = x.placed
	return res, nil
}

// settleAll settles every name a run of action i may have left behind:
// its held name, its new symlink's temporary name and its staged file.
func (x *run) settleAll(i int, a *Action, stage string) error {
	dir, _ := manifest.SplitPath(a.Path)
	for _, held := range []string{manifest.JoinPath(dir, heldName(x.j.ID, i)), manifest.JoinPath(dir, linkName(x.j.ID, i)), stage} {
		if held == "" {
			continue
		}
		if err := x.settle(held, a); err != nil {
			if errors.Is(err, errCannotSave) {
				continue // not ours to take away
			}
			return err
		}
	}
	return nil
}

// onDisk reports whether path holds exactly e (nil: nothing). Files are
// compared by content hash, symlinks by target, directories by kind.
func onDisk(ctx context.Context, d *dirs, path string, e *manifest.Entry) (bool, error) {
	r, name, err := d.leaf(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrEscape) {
			return e == nil, nil
		}
		return false, err
	}
	fi, err := r.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return e == nil, nil
	}
	if err != nil {
		return false, err
	}
	if e == nil || !sameKind(fi.Mode(), e.Kind) {
		return false, nil
	}
	switch e.Kind {
	case manifest.KindDir:
		return true, nil
	case manifest.KindSymlink:
		t, err := r.Readlink(name)
		return err == nil && t == e.Target, nil
	}
	if fi.Size() != e.Size || e.Hash.IsZero() {
		return fi.Size() == e.Size && e.Hash.IsZero(), nil
	}
	f, err := r.Open(name)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	h, _, err := cas.HashReader(ctx, f)
	return err == nil && h == e.Hash, nil
}

// writable runs op, and if it fails for lack of permission in directory
// dir (a read-only directory), runs it again with owner write permission
// granted for the moment, putting the directory's mode back afterwards.
// (A crash in between leaves the directory writable, nothing worse; the
// permission step of the plan sets any mode the plan itself changes.)
func writable(d *dirs, dir string, op func() error) error {
	err := op()
	if err == nil || !errors.Is(err, fs.ErrPermission) {
		return err
	}
	parent, name := manifest.SplitPath(dir)
	pr := d.root
	if dir != "" {
		var perr error
		if pr, perr = d.get(parent); perr != nil {
			return err
		}
	} else {
		name = "."
	}
	fi, serr := pr.Lstat(name)
	if serr != nil || !fi.IsDir() || fi.Mode().Perm()&0o200 != 0 {
		return err // not a mode problem we can lift
	}
	if cerr := pr.Chmod(name, fi.Mode().Perm()|0o700); cerr != nil {
		return err
	}
	err = op()
	if cerr := pr.Chmod(name, fi.Mode()&manifest.FileModeMask); err == nil && cerr != nil {
		err = cerr
	}
	return err
}

// removeOld removes what is at a.Path if it is still the old thing. It
// returns a reason when a directory has to stay because it is not empty.
// A file or symlink is renamed aside first and settled (saved if it is
// not what the plan expected) before it is deleted.
func (x *run) removeOld(i int, a *Action) (string, error) {
	d := x.d
	r, name, err := d.leaf(a.Path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrEscape) {
			return "", nil // a parent is already gone or replaced
		}
		return "", err
	}
	dir, _ := manifest.SplitPath(a.Path)
	held := manifest.JoinPath(dir, heldName(x.j.ID, i))
	if err := x.settle(held, a); err != nil && !errors.Is(err, errCannotSave) {
		return "", err // what an earlier run held
	}
	fi, err := r.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if !sameKind(fi.Mode(), a.Old.Kind) {
		if a.New != nil && sameKind(fi.Mode(), a.New.Kind) {
			return "", nil // already replaced (a re-run)
		}
		return "", &leftAsIs{fmt.Sprintf("changed while the restore ran (now a %s); left as is", kindOf(fi.Mode()))}
	}
	if fi.IsDir() {
		d.forget(a.Path)
		if err := writable(d, dir, func() error { return r.Remove(name) }); err != nil {
			if isNotEmpty(err) && a.New == nil {
				return "something not in the snapshot was added to it", nil
			}
			return "", err
		}
		return "", nil
	}
	_, hname := manifest.SplitPath(held)
	err = writable(d, dir, func() error { return renameNoReplace(r, name, r, hname) })
	if errors.Is(err, errNoExchange) {
		err = writable(d, dir, func() error { return r.Rename(name, hname) })
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if err := x.hook("settle " + a.Path); err != nil {
		return "", err
	}
	serr := x.settle(held, a)
	if errors.Is(serr, errCannotSave) {
		// Put it back where it was, unless something took its place.
		err := writable(d, dir, func() error { return renameNoReplace(r, hname, r, name) })
		if errors.Is(err, errNoExchange) {
			err = writable(d, dir, func() error { return r.Rename(hname, name) })
		}
		if err != nil {
			return "", &leftAsIs{fmt.Sprintf("changed while the restore ran; what was there is kept as %s", held)}
		}
		return "", &leftAsIs{"changed while the restore ran; left as is"}
	}
	return "", serr
}

func isNotEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) || errors.Is(err, fs.ErrExist)
}

func sameKind(m fs.FileMode, k manifest.Kind) bool {
	switch k {
	case manifest.KindDir:
		return m.IsDir()
	case manifest.KindSymlink:
		return m&fs.ModeSymlink != 0
	case manifest.KindFile:
		return m.IsRegular()
	case manifest.KindFIFO:
		return m&fs.ModeNamedPipe != 0
	}
	return false
}

// place puts the new entry of action i at its path.
func (x *run) place(i int, a *Action, stage string) error {
	d := x.d
	switch a.New.Kind {
	case manifest.KindDir:
		r, name, err := d.leaf(a.Path)
		if err != nil {
			return err
		}
		if fi, err := r.Lstat(name); err == nil && fi.IsDir() {
			return nil
		}
		dir, _ := manifest.SplitPath(a.Path)
		return writable(d, dir, func() error { return mkdirOwned(d, a.Path, r, name, a.New) })
	case manifest.KindSymlink:
		r, name, err := d.leaf(a.Path)
		if err != nil {
			return err
		}
		dir, _ := manifest.SplitPath(a.Path)
		tmp := linkName(x.j.ID, i)
		// An earlier run's temporary name holds either the new link or,
		// after the exchange, what was at the path.
		if err := x.settle(manifest.JoinPath(dir, tmp), a); err != nil && !errors.Is(err, errCannotSave) {
			return err
		}
		if err := x.settle(manifest.JoinPath(dir, heldName(x.j.ID, i)), a); err != nil && !errors.Is(err, errCannotSave) {
			return err
		}
		if fi, err := r.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if t, err := r.Readlink(name); err == nil && t == a.New.Target {
				return nil
			}
		}
		if err := writable(d, dir, func() error { return r.Symlink(a.New.Target, tmp) }); err != nil {
			return err
		}
		if err := chownNew(nameHandle{r, tmp}, d, a.Path, a.New); err != nil {
			_ = r.Remove(tmp)
			return err
		}
		return x.swapIn(r, tmp, manifest.JoinPath(dir, tmp), r, dir, name, a, manifest.JoinPath(dir, heldName(x.j.ID, i)))
	case manifest.KindFile, manifest.KindFIFO:
		if stage == "" {
			return nil // same content: only the mode changes (step 3)
		}
		tdir, tname := manifest.SplitPath(a.Path)
		held := manifest.JoinPath(tdir, heldName(x.j.ID, i))
		if err := x.settle(held, a); err != nil && !errors.Is(err, errCannotSave) {
			return err // what the rename-aside fallback of an earlier run held
		}
		sdir, sname := manifest.SplitPath(stage)
		sr, err := d.get(sdir)
		if err != nil {
			return err
		}
		tr, err := d.get(tdir)
		if err != nil {
			return err
		}
		if _, err := sr.Lstat(sname); errors.Is(err, fs.ErrNotExist) {
			// Placed and settled by an earlier run.
			if fi, err := tr.Lstat(tname); err != nil || !sameKind(fi.Mode(), a.New.Kind) {
				return fmt.Errorf("staged file %s is missing", stage)
			}
			return nil
		}
		if x.opts.verify {
			// After a crash: if the exchange was done, the staging name
			// holds what it took out of the path.
			done, err := onDisk(x.ctx, d, a.Path, a.New)
			if err != nil {
				return err
			}
			if done {
				if err := x.settle(stage, a); err != nil && !errors.Is(err, errCannotSave) {
					return err
				}
				return nil
			}
		}
		return x.swapIn(sr, sname, stage, tr, tdir, tname, a, held)
	}
	return fmt.Errorf("unknown kind %v", a.New.Kind)
}
