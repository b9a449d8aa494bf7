package restore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
)

// What a restore replaces or removes is never destroyed unseen: a file or
// symlink is exchanged with its staged successor (renameat2
// RENAME_EXCHANGE) or renamed aside, so the displaced entry is held under
// a name of ours; it is then read, and unless it is what the plan
// expected (its Old, or its New) it is saved (Options.Save) and recorded
// in the journal before it is removed. See doc.go, "Edits made while a
// restore runs".

var (
	// errNoExchange: renameat2 flags are not available here (another
	// kernel, filesystem or platform); the caller falls back.
	errNoExchange = errors.New("restore: atomic exchange not supported")
	// errCannotSave: what was taken out is something a restore cannot
	// save (a directory, a special file, or a file with no Options.Save):
	// the caller puts it back and leaves the path as it is.
	errCannotSave = errors.New("restore: cannot save what was found")
)

// leftAsIs is returned by a step that found something it must not take
// away; the action is skipped and reported as kept, with the reason.
type leftAsIs struct{ reason string }

func (e *leftAsIs) Error() string { return e.reason }

// Displaced is what a restore found at a path, at the moment it replaced
// or removed it, that was not what the plan expected there: an edit made
// while the restore ran. Its content was saved (Options.Save) before the
// restore removed it.
type Displaced struct {
	Path  string
	Entry *manifest.Entry // a file (Hash as Save returned it) or a symlink
}

// heldName is the name, in the directory of action i's path, under which
// a removal (or the rename-aside fallback of a replacement) holds what it
// took away until it is checked.
func heldName(id string, i int) string { return fmt.Sprintf("%s%s-o%d", stagePrefix, id, i) }

// linkName is the temporary name of action i's new symlink.
func linkName(id string, i int) string { return fmt.Sprintf("%s%s-l%d", stagePrefix, id, i) }

// run is one pass of finish over a journal.
type run struct {
	ctx  context.Context
	d    *dirs
	j    *journal
	opts *Options
	// placed: each file put in place, lstat'ed right after (see
	// notePlaced); Apply records only files still exactly so.
	placed map[string]fs.FileInfo
}

// notePlaced lstats the file action a just put at its path. A change
// made to it later has another ctime, so Apply does not record it with
// the restore's hash (Result.Written).
func (x *run) notePlaced(a *Action) {
	if a.New == nil || a.New.Kind != manifest.KindFile {
		return
	}
	r, name, err := x.d.leaf(a.Path)
	if err != nil {
		return
	}
	if fi, err := r.Lstat(name); err == nil {
		if x.placed == nil {
			x.placed = map[string]fs.FileInfo{}
		}
		x.placed[a.Path] = fi
	}
}

// sameContent reports whether found is e as far as data goes (files by
// content, symlinks by target; permission bits are not data).
func sameContent(found, e *manifest.Entry) bool {
	if found == nil || e == nil || found.Kind != e.Kind {
		return false
	}
	switch e.Kind {
	case manifest.KindFile:
		return !e.Hash.IsZero() && found.Hash == e.Hash && found.Size == e.Size
	case manifest.KindSymlink:
		return found.Target == e.Target
	case manifest.KindFIFO:
		return true // no content
	}
	return false
}

// settle deals with what was taken out of action a's path and is now held
// at held: if it is the plan's Old or New it is removed; otherwise it is
// saved and recorded in the journal, then removed. Nothing held: nil.
// errCannotSave: it is still there, for the caller to put back.
func (x *run) settle(held string, a *Action) error {
	r, name, err := x.d.leaf(held)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrEscape) {
			return nil
		}
		return err
	}
	fi, err := r.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var found *manifest.Entry
	switch {
	case fi.Mode().IsRegular():
		f, err := r.Open(name)
		if err != nil {
			return err
		}
		h, n, err := cas.HashReader(x.ctx, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("read what was at %s: %w", a.Path, err)
		}
		found = &manifest.Entry{Kind: manifest.KindFile, Mode: manifest.ModeOf(fi.Mode()), Size: n, Hash: h}
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := r.Readlink(name)
		if err != nil {
			return err
		}
		found = &manifest.Entry{Kind: manifest.KindSymlink, Mode: manifest.ModeOf(fi.Mode()), Size: int64(len(t)), Target: t}
	case fi.Mode()&fs.ModeNamedPipe != 0: // never opened
		found = &manifest.Entry{Kind: manifest.KindFIFO, Mode: manifest.ModeOf(fi.Mode())}
	default:
		return errCannotSave
	}
	if !sameContent(found, a.Old) && !sameContent(found, a.New) {
		if found.Kind == manifest.KindFile {
			if x.opts.Save == nil {
				return errCannotSave
			}
			f, err := r.Open(name)
			if err != nil {
				return err
			}
			h, n, err := x.opts.Save(x.ctx, f)
			f.Close()
			if err != nil {
				return fmt.Errorf("save what was at %s: %w", a.Path, err)
			}
			found.Hash, found.Size = h, n
		}
		if err := x.record(a.Path, found); err != nil {
			return err
		}
	}
	dir, _ := manifest.SplitPath(held)
	return writable(x.d, dir, func() error { return r.Remove(name) })
}

// record adds a displaced entry to the journal, durably, before what it
// describes is removed from the disk.
func (x *run) record(path string, e *manifest.Entry) error {
	_, name := manifest.SplitPath(path)
	e.Name = name
	je := jDisplaced{Path: path, Entry: toJ(e)}
	replaced := false
	for k := range x.j.Displaced {
		if x.j.Displaced[k].Path == path {
			x.j.Displaced[k], replaced = je, true
		}
	}
	if !replaced {
		x.j.Displaced = append(x.j.Displaced, je)
	}
	return writeDurable(x.opts.JournalDir, journalName, x.j)
}

// displaced returns the journal's displaced entries.
func (j *journal) displaced() ([]Displaced, error) {
	var out []Displaced
	for _, jd := range j.Displaced {
		if err := validPath(jd.Path); err != nil {
			return nil, err
		}
		_, name := manifest.SplitPath(jd.Path)
		e, err := fromJ(name, jd.Entry)
		if err != nil {
			return nil, err
		}
		if e == nil {
			continue
		}
		out = append(out, Displaced{Path: jd.Path, Entry: e})
	}
	return out, nil
}

// swapIn puts the entry at src/srcName (a staged file or a new symlink)
// at action a's path, in directory dst (relative dstDir) as dstName, and
// settles what was there. held is the rename-aside name (fallback).
func (x *run) swapIn(src *os.Root, srcName, srcRel string, dst *os.Root, dstDir, dstName string, a *Action, held string) error {
	for attempt := 0; attempt < 8; attempt++ {
		err := writable(x.d, dstDir, func() error { return exchange(src, srcName, dst, dstName) })
		switch {
		case err == nil:
			// srcRel now holds what was at the path.
			x.notePlaced(a)
			if err := x.hook("settle " + a.Path); err != nil {
				return err
			}
			serr := x.settle(srcRel, a)
			if errors.Is(serr, errCannotSave) {
				if xerr := exchange(src, srcName, dst, dstName); xerr != nil {
					return fmt.Errorf("put back what was found at %s (now at %s): %w", a.Path, srcRel, xerr)
				}
				unstage(x.d, []string{srcRel})
				return &leftAsIs{"changed while the restore ran (something it cannot save is there); left as is"}
			}
			return serr
		case errors.Is(err, fs.ErrNotExist):
			// Nothing at the path: rename in, unless something appears
			// there meanwhile (then exchange with it).
			err := writable(x.d, dstDir, func() error { return renameNoReplace(src, srcName, dst, dstName) })
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			if errors.Is(err, errNoExchange) {
				err = writable(x.d, dstDir, func() error { return x.move(srcRel, a.Path) })
			}
			if err == nil {
				x.notePlaced(a)
			}
			return err
		case errors.Is(err, errNoExchange):
			return x.swapAside(srcRel, dstDir, a, held)
		default:
			return err
		}
	}
	return fmt.Errorf("%s keeps changing while the restore runs", a.Path)
}

// swapAside is swapIn where an atomic exchange is not available: the
// live entry is renamed aside to held, the new one renamed in, and what
// was held settled. Between the two renames the path is briefly absent.
func (x *run) swapAside(srcRel, dstDir string, a *Action, held string) error {
	err := writable(x.d, dstDir, func() error { return x.move(a.Path, held) })
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := writable(x.d, dstDir, func() error { return x.move(srcRel, a.Path) }); err != nil {
		return err
	}
	x.notePlaced(a)
	if err := x.hook("settle " + a.Path); err != nil {
		return err
	}
	serr := x.settle(held, a)
	if errors.Is(serr, errCannotSave) {
		return &leftAsIs{fmt.Sprintf("changed while the restore ran; what was there is kept as %s", held)}
	}
	return serr
}

// move renames one path of the work tree to another through their
// directories' handles.
func (x *run) move(from, to string) error {
	fdir, fname := manifest.SplitPath(from)
	tdir, tname := manifest.SplitPath(to)
	fr, err := x.d.get(fdir)
	if err != nil {
		return err
	}
	if fdir == tdir {
		return fr.Rename(fname, tname)
	}
	tr, err := x.d.get(tdir)
	if err != nil {
		return err
	}
	return renameBetween(fr, fname, tr, tname, func() error { return x.d.root.Rename(from, to) })
}

// hook is the step between taking an entry out of its path and settling
// it; it happens only where something was there, so it adds itself to
// the progress total as it goes.
func (x *run) hook(name string) error {
	if x.opts.Progress != nil {
		x.opts.Progress.Total.Add(1)
	}
	return x.opts.step(name)
}
