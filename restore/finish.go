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
// result.
func finish(ctx context.Context, d *dirs, j *journal, opts *Options) (*Result, error) {
	type act struct {
		Action
		stage string
	}
	acts := make([]act, len(j.Actions))
	for i, ja := range j.Actions {
		_, name := split(ja.Path)
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
			if _, name := split(ja.Stage); !strings.HasPrefix(name, stagePrefix) {
				return nil, fmt.Errorf("restore: journal: staging name %q is not ours", ja.Stage)
			}
		}
		acts[i] = act{Action{Path: ja.Path, Old: old, New: nw}, ja.Stage}
	}
	res := &Result{}
	// skip holds actions left alone, with why. When recovering, a path
	// that is neither what the restore found nor what it was to become
	// was edited after the crash: it is kept as it is (its content is not
	// in the store, so replacing it would lose it), and so is a path whose
	// step fails, so that recovery never blocks every later command.
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
			if !isOld && !isNew {
				skip[i] = "changed after an interrupted restore; left as is"
				if a.stage != "" {
					unstage(d, []string{a.stage})
				}
			}
		}
	}
	failed := func(i int, err error) error {
		if !opts.verify {
			return err
		}
		skip[i] = "could not be finished: " + err.Error()
		return nil
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
		kept, err := removeOld(d, &a.Action, a.stage)
		if err != nil {
			if err := failed(i, fmt.Errorf("restore: remove %s: %w", a.Path, err)); err != nil {
				return nil, err
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
		if err := place(d, &a.Action, a.stage, j.ID, i); err != nil {
			if err := failed(i, fmt.Errorf("restore: %s: %w", a.Path, err)); err != nil {
				return nil, err
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
			if err := failed(i, fmt.Errorf("restore: chmod %s: %w", a.Path, err)); err != nil {
				return nil, err
			}
		}
	}
	if err := opts.step("commit"); err != nil {
		return nil, err
	}
	if err := opts.Commit(ctx, opts.Meta); err != nil {
		return nil, err
	}
	if err := opts.step("clear journal"); err != nil {
		return nil, err
	}
	if err := removeDurable(opts.JournalDir, journalName); err != nil {
		return nil, err
	}
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
	return res, nil
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
	parent, name := split(dir)
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
	if cerr := pr.Chmod(name, fi.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)); err == nil && cerr != nil {
		err = cerr
	}
	return err
}

// removeOld removes what is at a.Path if it is still the old thing. It
// returns a reason when a directory has to stay because it is not empty.
func removeOld(d *dirs, a *Action, stage string) (string, error) {
	r, name, err := d.leaf(a.Path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrEscape) {
			return "", nil // a parent is already gone or replaced
		}
		return "", err
	}
	fi, err := r.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if !sameKind(fi.Mode(), a.Old.Kind) {
		return "", nil // already replaced (a re-run), or not ours to remove
	}
	if fi.IsDir() {
		d.forget(a.Path)
	}
	dir, _ := split(a.Path)
	if err := writable(d, dir, func() error { return r.Remove(name) }); err != nil {
		if fi.IsDir() && isNotEmpty(err) && a.New == nil {
			return "something not in the snapshot was added to it", nil
		}
		return "", err
	}
	return "", nil
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

// place puts the new entry of a at its path.
func place(d *dirs, a *Action, stage, id string, i int) error {
	switch a.New.Kind {
	case manifest.KindDir:
		r, name, err := d.leaf(a.Path)
		if err != nil {
			return err
		}
		if fi, err := r.Lstat(name); err == nil && fi.IsDir() {
			return nil
		}
		dir, _ := split(a.Path)
		return writable(d, dir, func() error { return mkdirOwned(d, a.Path, r, name, a.New) })
	case manifest.KindSymlink:
		r, name, err := d.leaf(a.Path)
		if err != nil {
			return err
		}
		if fi, err := r.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if t, err := r.Readlink(name); err == nil && t == a.New.Target {
				return nil
			}
		}
		tmp := fmt.Sprintf("%s%s-l%d", stagePrefix, id, i)
		dir, _ := split(a.Path)
		return writable(d, dir, func() error {
			_ = r.Remove(tmp)
			if err := r.Symlink(a.New.Target, tmp); err != nil {
				return err
			}
			if err := chownNew(nameHandle{r, tmp}, d, a.Path, a.New); err != nil {
				_ = r.Remove(tmp)
				return err
			}
			if err := r.Rename(tmp, name); err != nil {
				_ = r.Remove(tmp)
				return err
			}
			return nil
		})
	case manifest.KindFile, manifest.KindFIFO:
		if stage == "" {
			return nil // same content: only the mode changes (step 3)
		}
		sdir, sname := split(stage)
		sr, err := d.get(sdir)
		if err != nil {
			return err
		}
		if _, err := sr.Lstat(sname); errors.Is(err, fs.ErrNotExist) {
			// Renamed into place by an earlier run.
			r, name, err := d.leaf(a.Path)
			if err != nil {
				return err
			}
			if fi, err := r.Lstat(name); err != nil || !sameKind(fi.Mode(), a.New.Kind) {
				return fmt.Errorf("staged file %s is missing", stage)
			}
			return nil
		}
		target := a.Path
		if sdir != "" {
			target = a.Path[len(sdir)+1:]
		}
		tdir, tname := split(a.Path)
		if tdir == sdir {
			return writable(d, tdir, func() error { return sr.Rename(sname, tname) })
		}
		tr, err := d.get(tdir)
		if err != nil {
			return err
		}
		return writable(d, tdir, func() error {
			return renameBetween(sr, sname, tr, tname, func() error { return sr.Rename(sname, target) })
		})
	}
	return fmt.Errorf("unknown kind %v", a.New.Kind)
}
