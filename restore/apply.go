package restore

import (
	"cmp"
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
	"github.com/turnback/turnback/manifest"
)

// Source yields stored content; *cas.Store fits. Open may be called
// from several goroutines at once (staging reads ahead, prefetch.go).
// A reader that is an io.Closer is closed once staging is done with it,
// read whole or not.
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
	// Force skips the check, just before the commit point, that every
	// path the plan replaces or removes still holds its Old (by lstat and
	// a full hash): without Force a difference makes Apply return a
	// *ChangedError and change nothing. With or without it, whatever is
	// found at a path at the moment it is replaced or removed and is not
	// the plan's Old (or New) is saved with Save and reported (Displaced).
	Force bool
	// Save stores content read from r durably (it must be in the store
	// when Save returns) and returns its hash and length. Without it,
	// unexpected content found after the commit point is put back and
	// its path left as it is.
	Save func(ctx context.Context, r io.Reader) (cas.Hash, int64, error)
	// Amend, if set, is called before Commit when entries were displaced
	// and returns the metadata to commit instead of Meta (the caller adds
	// them to its checkpoint). It must be deterministic: recovery calls
	// it again with the same arguments.
	Amend func(ctx context.Context, meta []byte, displaced []Displaced) ([]byte, error)
	// Ready, if set, is waited for just before the commit point, after
	// the staging and the check: the caller's own preparations (making
	// its metadata's records durable, checking what it relies on) run
	// meanwhile. An error from it makes Apply change nothing and return
	// that error as it is.
	Ready func() error

	// verify: finishing a journal after a crash, when the disk may have
	// been edited since (see finish).
	verify bool
	// rollback: the plan puts back what an interrupted restore changed
	// (see Rollback); its journal commits no metadata.
	rollback bool
	// syncFile, if set, fsyncs a staged file or directory before the
	// commit point in place of (*os.File).Sync (testing: to see what was
	// made durable, and to inject errors).
	syncFile func(*os.File) error
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
	// Displaced: content found at a path when it was replaced or removed
	// that the plan did not expect (an edit made meanwhile), saved.
	Displaced []Displaced

	placed map[string]fs.FileInfo // see run.placed
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
	dir, _ := manifest.SplitPath(p)
	for dir != "" {
		if _, err := d.get(dir); err == nil {
			return dir
		}
		dir, _ = manifest.SplitPath(dir)
	}
	return ""
}

// Apply carries out plan on the work tree open at root, all or nothing:
// every new file is first written and fsynced beside its target, with
// its directory (the staging list in JournalDir names them; the syncs
// run as one batch); then the journal, the commit
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
	j := &journal{Version: 1, ID: newID(), WorkTree: opts.WorkTree, Meta: opts.Meta, Rollback: opts.rollback}
	st := &staging{ID: j.ID}
	for i, a := range plan.Actions {
		ja := jAction{Path: a.Path, Old: toJ(a.Old), New: toJ(a.New)}
		if a.writesFile() {
			ja.Stage = manifest.JoinPath(stageDir(d, a.Path), fmt.Sprintf("%s%s-%d", stagePrefix, j.ID, i))
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
	// The staged entries are made durable as one batch (durable.go): the
	// syncs of the files and of their directories run while check reads
	// the tree; b.wait, before the journal, waits for them all.
	b := newBatch(ctx, opts.syncFile)
	if err := stageAhead(ctx, d, b, plan, j, st, &opts); err != nil {
		b.abort()
		unstage(d, st.Files)
		if rerr := removeDurable(opts.JournalDir, stagingName); rerr != nil {
			// One line: error messages are printed as lines.
			return nil, fmt.Errorf("%w (removing the staging record failed too: %w)", err, rerr)
		}
		return nil, err
	}
	serr := b.start(d)
	if !opts.Force && serr == nil {
		// The last look before the commit point: every path to replace
		// or remove must still be what the plan was made from.
		changed, err := check(ctx, d, plan)
		if err == nil && len(changed) > 0 {
			err = &ChangedError{Paths: changed}
		}
		if err != nil {
			b.abort()
			unstage(d, st.Files)
			_ = removeDurable(opts.JournalDir, stagingName)
			return nil, err
		}
	}
	// Every staged entry durable (its data, owner, mode and directory
	// entry) before the commit point.
	if err := cmp.Or(serr, b.wait(d)); err != nil { // wait runs either way
		unstage(d, st.Files)
		_ = removeDurable(opts.JournalDir, stagingName)
		return nil, err
	}
	if opts.Ready != nil {
		if err := opts.Ready(); err != nil {
			unstage(d, st.Files)
			_ = removeDurable(opts.JournalDir, stagingName)
			return nil, err
		}
	}
	// What each staged file is, synced and closed (Result.Written).
	staged := map[int]fs.FileInfo{}
	for i, ja := range j.Actions {
		if ja.Stage == "" {
			continue
		}
		if fi, err := d.lstat(ja.Stage); err == nil {
			staged[i] = fi
		}
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
	// The staging list goes without a sync of its own: a journal with the
	// same id overrides it, and the journal's removal (a sync of the same
	// directory) makes its removal durable too.
	if err := removeName(opts.JournalDir, stagingName); err != nil {
		return nil, &UnfinishedError{ID: j.ID, Rollback: j.Rollback, Err: err}
	}
	res, err := finish(ctx, d, j, &opts)
	if err != nil {
		return nil, &UnfinishedError{ID: j.ID, Rollback: j.Rollback, Err: err}
	}
	for i, a := range plan.Actions {
		sfi := staged[i]
		if !a.writesFile() || sfi == nil {
			continue
		}
		// Only the file we staged, as we placed it: an edit that replaced
		// or rewrote it since must not be recorded with our hash (the
		// next capture would take the edit for our content). An edit
		// that kept size and mtime still moved the ctime.
		pfi := res.placed[a.Path]
		if pfi == nil {
			continue // placed by an earlier run: not seen placed
		}
		if r, name, err := d.leaf(a.Path); err == nil {
			if fi, err := r.Lstat(name); err == nil && fi.Mode().IsRegular() && os.SameFile(fi, sfi) &&
				fi.Size() == sfi.Size() && fi.ModTime().Equal(sfi.ModTime()) && sameChange(fi, pfi) {
				res.Written = append(res.Written, Written{Path: a.Path, Hash: a.New.Hash, Info: fi})
			}
		}
	}
	return res, nil
}

// stageAhead is stageAll with the content of small files read ahead
// (prefetch.go).
func stageAhead(ctx context.Context, d *dirs, b *batch, plan *Plan, j *journal, st *staging, opts *Options) error {
	src := opts.Source
	p := startPrefetch(ctx, src, plan.Actions)
	if p == nil {
		return stageAll(ctx, d, b, plan, j, st, opts)
	}
	opts.Source = p
	defer func() { p.stop(); opts.Source = src }()
	return stageAll(ctx, d, b, plan, j, st, opts)
}

// stageAll writes every new file to its staging name. A directory that
// does not let us create the staging file (read-only) passes it up to its
// parent; the staging list is rewritten first, so recovery always knows
// every staged file.
func stageAll(ctx context.Context, d *dirs, b *batch, plan *Plan, j *journal, st *staging, opts *Options) error {
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
			err := stg.stage(ctx, d, b, stage, a.Path, a.New, opts.Source)
			if err == nil {
				break
			}
			dir, name := manifest.SplitPath(stage)
			if !errors.Is(err, fs.ErrPermission) || dir == "" {
				return fmt.Errorf("restore: stage %s: %w", a.Path, err)
			}
			up, _ := manifest.SplitPath(dir)
			stage = manifest.JoinPath(up, name)
			j.Actions[i].Stage, st.Files[k] = stage, stage
			if err := writeDurable(opts.JournalDir, stagingName, st); err != nil {
				return err
			}
		}
		k++
	}
	return nil
}

// unstage removes staged files (best effort: used on the way out of a
// failed restore, and by recovery).
func unstage(d *dirs, files []string) {
	for _, s := range files {
		_, name := manifest.SplitPath(s)
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
// interrupted before it. It reports whether there was anything to do. If
// the roll-forward cannot complete, the journal stays and the error wraps
// ErrUnfinished: the restore is not done until a later Recover completes
// it or Rollback puts back what it changed.
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
	st := &staging{}
	sok, err := readJSON(joinPath(opts.JournalDir, stagingName), st)
	if err != nil {
		return false, err
	}
	if ok {
		if sok && st.ID != j.ID {
			// A later restore (a rollback) staged these and never
			// reached its own journal.
			unstage(d, st.Files)
		}
		opts.Meta = j.Meta
		opts.verify = true
		if _, err := finish(ctx, d, j, &opts); err != nil {
			return true, &UnfinishedError{ID: j.ID, Rollback: j.Rollback, Err: err}
		}
		return true, removeDurable(opts.JournalDir, stagingName)
	}
	if !sok {
		return false, nil
	}
	unstage(d, st.Files)
	return true, removeDurable(opts.JournalDir, stagingName)
}

func joinPath(dir, name string) string { return dir + string(os.PathSeparator) + name }
