package restore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"

	"github.com/turnback/turnback/cas"
)

// Source yields stored content; *cas.Store fits.
type Source interface {
	Open(ctx context.Context, h cas.Hash) (io.Reader, error)
}

// Options configure Apply and Recover.
type Options struct {
	// JournalDir holds the journal and staging list: the store directory,
	// outside the work tree.
	JournalDir string
	// WorkTree is recorded in the journal for diagnostics.
	WorkTree string
	// Source provides the content of staged files.
	Source Source
	// Meta is opaque caller data kept in the journal and handed to Commit,
	// also when a crashed restore is finished by Recover.
	Meta []byte
	// Commit records the caller's metadata once every file operation is
	// done, before the journal is removed. It must be idempotent.
	Commit func(ctx context.Context, meta []byte) error
	// Hook, if set, is called before every step with its name (testing:
	// crash and fault injection). An error from it fails the step.
	Hook func(step string) error
	// Progress, if set, counts the steps as they are done.
	Progress *Progress

	// verify: finishing a journal after a crash, when the disk may have
	// been edited since (see finish).
	verify bool
}

// Progress counts a restore's steps (staged files plus file operations),
// safe to read from another goroutine.
type Progress struct {
	Done, Total atomic.Int64
}

// Written is a file a restore put in place.
type Written struct {
	Path string
	Hash cas.Hash
	Info fs.FileInfo
}

// Result reports an applied restore.
type Result struct {
	Restored []string // existing paths rewritten (content, kind, mode or target)
	Created  []string // paths that did not exist
	Deleted  []string // paths removed
	Kept     []Skipped
	Written  []Written
}

func (o *Options) step(name string) error {
	if o.Progress != nil {
		o.Progress.Done.Add(1)
	}
	if o.Hook == nil {
		return nil
	}
	if err := o.Hook(name); err != nil {
		return fmt.Errorf("restore: %s: %w", name, err)
	}
	return nil
}

func newID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

const stagePrefix = ".turnback-"

// stageDir returns the deepest ancestor directory of p that exists on disk
// as a real directory; staged files live there until they are renamed
// into place, so the rename never crosses a filesystem.
func stageDir(d *dirs, p string) string {
	dir, _ := split(p)
	for dir != "" {
		if _, err := d.get(dir); err == nil {
			return dir
		}
		dir, _ = split(dir)
	}
	return ""
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// Apply carries out plan on the work tree open at root, all or nothing:
// every new file is first written and fsynced beside its target (the
// staging list in JournalDir names them); then the journal, the commit
// point, is written and synced; then the renames, removals, mkdirs and
// chmods run, Commit records the caller's metadata, and the journal is
// removed. An error before the journal leaves the work tree untouched; a
// crash after it is finished by Recover.
func Apply(ctx context.Context, root *os.Root, plan *Plan, opts Options) (*Result, error) {
	if opts.Commit == nil {
		opts.Commit = func(context.Context, []byte) error { return nil }
	}
	d := newDirs(root)
	defer d.close()
	j := &journal{Version: 1, ID: newID(), WorkTree: opts.WorkTree, Meta: opts.Meta}
	st := &staging{ID: j.ID}
	for i, a := range plan.Actions {
		ja := jAction{Path: a.Path, Old: toJ(a.Old), New: toJ(a.New)}
		if a.writesFile() {
			ja.Stage = joinRel(stageDir(d, a.Path), fmt.Sprintf("%s%s-%d", stagePrefix, j.ID, i))
			st.Files = append(st.Files, ja.Stage)
		}
		j.Actions = append(j.Actions, ja)
	}
	if opts.Progress != nil {
		// Staged files, the journal, every action's removal or placement,
		// the commit and the clear.
		opts.Progress.Total.Store(int64(len(st.Files) + 1 + 2*len(plan.Actions) + 2))
	}
	if len(st.Files) > 0 {
		if err := writeDurable(opts.JournalDir, stagingName, st); err != nil {
			return nil, err
		}
	}
	if err := stageAll(ctx, d, plan, j, st, &opts); err != nil {
		unstage(d, st.Files)
		if rerr := removeDurable(opts.JournalDir, stagingName); rerr != nil {
			return nil, errors.Join(err, rerr)
		}
		return nil, err
	}
	if err := opts.step("journal"); err != nil {
		unstage(d, st.Files)
		_ = removeDurable(opts.JournalDir, stagingName)
		return nil, err
	}
	if err := writeDurable(opts.JournalDir, journalName, j); err != nil {
		unstage(d, st.Files)
		_ = removeDurable(opts.JournalDir, stagingName)
		return nil, err
	}
	// Committed: from here on the restore is finished, now or by Recover.
	if err := removeDurable(opts.JournalDir, stagingName); err != nil {
		return nil, err
	}
	res, err := finish(ctx, d, j, &opts)
	if err != nil {
		return nil, err
	}
	for _, a := range plan.Actions {
		if !a.writesFile() {
			continue
		}
		if r, name, err := d.leaf(a.Path); err == nil {
			if fi, err := r.Lstat(name); err == nil && fi.Mode().IsRegular() {
				res.Written = append(res.Written, Written{Path: a.Path, Hash: a.New.Hash, Info: fi})
			}
		}
	}
	return res, nil
}

// stageAll writes every new file to its staging name. A directory that
// does not let us create the staging file (read-only) passes it up to its
// parent; the staging list is rewritten first, so recovery always knows
// every staged file.
func stageAll(ctx context.Context, d *dirs, plan *Plan, j *journal, st *staging, opts *Options) error {
	k := 0 // index into st.Files
	stg := newStager()
	for i, a := range plan.Actions {
		stage := j.Actions[i].Stage
		if stage == "" {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := opts.step(fmt.Sprintf("stage %d", i)); err != nil {
			return err
		}
		for {
			err := stg.stage(ctx, d, stage, a.Path, a.New, opts.Source)
			if err == nil {
				break
			}
			dir, name := split(stage)
			if !errors.Is(err, fs.ErrPermission) || dir == "" {
				return fmt.Errorf("restore: stage %s: %w", a.Path, err)
			}
			up, _ := split(dir)
			stage = joinRel(up, name)
			j.Actions[i].Stage, st.Files[k] = stage, stage
			if err := writeDurable(opts.JournalDir, stagingName, st); err != nil {
				return err
			}
		}
		k++
	}
	return nil
}

// fileMode converts the permission bits of a tree entry to Go's form.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	if m&0o4000 != 0 {
		mode |= fs.ModeSetuid
	}
	if m&0o2000 != 0 {
		mode |= fs.ModeSetgid
	}
	if m&0o1000 != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// unstage removes staged files (best effort: used on the way out of a
// failed restore, and by recovery).
func unstage(d *dirs, files []string) {
	for _, s := range files {
		_, name := split(s)
		if !strings.HasPrefix(name, stagePrefix) {
			continue // never delete anything but our own staging files
		}
		if r, name, err := d.leaf(s); err == nil {
			_ = r.Remove(name)
		}
	}
}

// Recover finishes a restore interrupted after its commit point (rolls it
// forward and commits its metadata) or deletes the staged files of one
// interrupted before it. It reports whether there was anything to do.
func Recover(ctx context.Context, root *os.Root, opts Options) (bool, error) {
	if opts.Commit == nil {
		opts.Commit = func(context.Context, []byte) error { return nil }
	}
	d := newDirs(root)
	defer d.close()
	j := &journal{}
	ok, err := readJSON(joinPath(opts.JournalDir, journalName), j)
	if err != nil {
		return false, err
	}
	if ok {
		opts.Meta = j.Meta
		opts.verify = true
		if _, err := finish(ctx, d, j, &opts); err != nil {
			return true, fmt.Errorf("restore: finish interrupted restore %s: %w", j.ID, err)
		}
		return true, removeDurable(opts.JournalDir, stagingName)
	}
	st := &staging{}
	ok, err = readJSON(joinPath(opts.JournalDir, stagingName), st)
	if err != nil || !ok {
		return false, err
	}
	unstage(d, st.Files)
	return true, removeDurable(opts.JournalDir, stagingName)
}

func joinPath(dir, name string) string { return dir + string(os.PathSeparator) + name }
