package walker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker/ignore"
)

// subdir opens and captures child directory name of d (fi: its lstat
// in d's listing; kept by its parent's matcher m as src says, probe left
// to evidence; for SourceForced, m is the parent's Exclude), applying the
// large-new-directory rule: not to a directory git tracks paths in or an
// ignore file's "!" keeps. An errGenerated says the directory shows it
// was generated. Its handle and previous tree are made in room.
func (c *capture) subdir(ctx context.Context, d *dirh, p, name string, fi fs.FileInfo, m *ignore.Matcher, src ignore.Source, probe ignore.Probe, parentPrev, base *prevDir, room *subRoom) (manifest.Entry, error) {
	if c.opts.Listing != nil {
		c.opts.Listing(p)
	}
	// A capture a watcher will take over (Options.Listing) trusts what
	// it read of a directory from the moment Listing is called: the
	// directory's stat must be taken after that, as its open takes it,
	// not before, as its parent's listing did.
	var sub *dirh
	var err error
	if c.opts.Listing != nil {
		sub, err = d.openDir(name)
	} else {
		sub, err = d.lazyDir(name, fi, &room.dir)
	}
	if err != nil {
		if _, ok := asLazyOpenError(err); ok {
			return manifest.Entry{}, err // d's, or an ancestor's: theirs
		}
		return c.unopened(p, err)
	}
	defer sub.close()
	var subPrev *prevDir
	if pe, ok, known := parentPrev.child(ctx, c, p, name); known && c.opts.LargeDirFiles > 0 {
		wasDir := ok
		// Only a directory the large-new-directory rule left uncaptured
		// (it has a file count) stays so; one that was unreadable is
		// simply read again.
		sticky := wasDir && pe.Uncaptured && pe.Files > 0
		kept := src == ignore.SourceTracked || src == ignore.SourceFile || src == ignore.SourceForced
		if kept {
			if wasDir && !pe.Uncaptured {
				subPrev = room.prevDir(pe.Hash)
			}
		} else if !wasDir || sticky {
			n, ev, err := countFiles(ctx, sub, p, m, probe, c.track)
			if err != nil {
				return manifest.Entry{}, err
			}
			if ev != "" {
				return manifest.Entry{}, &errGenerated{ev}
			}
			if n >= int64(c.opts.LargeDirFiles) || sticky {
				e := manifest.Entry{Kind: manifest.KindDir, Uncaptured: true, Files: n}
				reason := fmt.Sprintf("new directory with %d files (limit %d)", n, c.opts.LargeDirFiles)
				if wasDir {
					reason = "directory uncaptured since it appeared"
				}
				c.uncapturedDir(p, &e, reason, !wasDir)
				return e, nil
			}
		} else {
			subPrev = room.prevDir(pe.Hash)
		}
	}
	ent, err := c.dir(ctx, sub, p, m, probe, subPrev, base)
	if err != nil {
		if le, ok := asLazyOpenError(err); ok && ctx.Err() == nil {
			if le.d != sub {
				return manifest.Entry{}, err // an ancestor's: theirs
			}
			return c.unopened(p, le.err)
		}
		var pe *fs.PathError
		if errors.As(err, &pe) && ctx.Err() == nil {
			c.problem(p, err)
			e := manifest.Entry{Kind: manifest.KindDir, Uncaptured: true}
			c.uncaptured(p, &e, "unreadable: "+err.Error())
			return e, nil
		}
		return manifest.Entry{}, err
	}
	return ent, nil
}

// unopened is the entry of directory p that could not be opened: none
// if it vanished, else an unreadable one.
func (c *capture) unopened(p string, err error) (manifest.Entry, error) {
	if errors.Is(err, fs.ErrNotExist) {
		return manifest.Entry{}, errVanished
	}
	c.problem(p, err)
	e := manifest.Entry{Kind: manifest.KindDir, Uncaptured: true}
	c.uncaptured(p, &e, "unreadable: "+err.Error())
	return e, nil
}

// subRoom holds what subdir makes for one subdirectory while it is
// read: it lives in the subdirectory's task (see subTask), so that these
// cost no allocations of their own.
type subRoom struct {
	dir  dirSlot
	prev prevDir
}

// prevDir returns r's prevDir, set to the tree hash.
func (r *subRoom) prevDir(hash cas.Hash) *prevDir {
	r.prev = prevDir{hash: hash}
	return &r.prev
}

// prevDir is a directory of the previous snapshot, loaded on first use
// (only directories with subdirectories need it, for the new-directory
// rule) unless the stat cache record of the directory describes it.
type prevDir struct {
	hash cas.Hash
	once sync.Once
	tree *manifest.Tree
	// rec: the directory's stat cache record, when its tree is this one
	// (set by know before any child is looked up).
	rec *dirRecord
}

// know gives p the directory's stat cache record: when the record was
// written for p's tree, child reads p's subdirectories from it instead of
// loading the tree.
func (p *prevDir) know(rec *dirRecord) {
	if p != nil && rec != nil && !rec.tree.IsZero() && rec.tree == p.hash {
		p.rec = rec
	}
}

// child returns subdirectory name's entry in p's tree (rel: p's path,
// for the problem reported if the tree cannot be loaded). ok: the tree
// holds name as a directory; known: p's tree could be read (false also
// for a nil p).
func (p *prevDir) child(ctx context.Context, c *capture, rel, name string) (e manifest.Entry, ok, known bool) {
	if p == nil {
		return e, false, false
	}
	if p.rec != nil {
		se, ok := p.rec.sub(name)
		return manifest.Entry{Name: se.name, Kind: manifest.KindDir, Hash: se.hash, Uncaptured: se.uncaptured, Files: se.files}, ok, true
	}
	if c.opts.LargeDirFiles <= 0 {
		return e, false, false
	}
	t := p.load(ctx, c, rel)
	if t == nil {
		return e, false, false
	}
	te, ok := t.Lookup(name)
	if !ok {
		return e, false, true
	}
	return *te, te.Kind == manifest.KindDir, true
}

func (p *prevDir) load(ctx context.Context, c *capture, rel string) *manifest.Tree {
	return p.get(ctx, c, func(err error) {
		c.problem(rel, fmt.Errorf("previous snapshot unreadable here, new-directory rule off: %w", err))
	})
}

// get loads the tree once; onErr, if set, hears why it could not be.
func (p *prevDir) get(ctx context.Context, c *capture, onErr func(error)) *manifest.Tree {
	p.once.Do(func() {
		t, err := c.loader.LoadTree(ctx, p.hash)
		if err != nil {
			if ctx.Err() == nil && onErr != nil {
				onErr(err)
			}
			return
		}
		p.tree = t
	})
	return p.tree
}

// countFiles counts the non-ignored files and symlinks below d, which
// its parent's matcher left to evidence as probe says; a directory that
// shows it was generated counts nothing, and d itself returns the
// evidence.
func countFiles(ctx context.Context, d *dirh, rel string, m *ignore.Matcher, probe ignore.Probe, tr *tracking) (int64, string, error) {
	if err := ctx.Err(); err != nil {
		return 0, "", err
	}
	ents, err := d.list(nil, nil) // held while it recurses: no shared scratch
	if err != nil {
		return 0, "", nil // unreadable: counts as empty
	}
	if ev := evidence(d, rel, probe, ents); ev != "" {
		return 0, ev, nil
	}
	m = loadIgnores(d, rel, m, ents)
	m = tr.nested(nil, rel, m, ents)
	var n int64
	for _, de := range ents {
		if de.err != nil {
			continue
		}
		p := manifest.JoinPath(rel, de.name)
		mode := de.fi.Mode()
		v := m.Judge(p, mode.IsDir())
		if v.Ignored || isStagingName(de.name) {
			continue
		}
		switch {
		case mode.IsDir():
			sub, err := d.openDir(de.name)
			if err != nil {
				continue
			}
			sm := m
			if v.Source == ignore.SourceForced {
				sm = m.Exclude(v)
			}
			k, _, err := countFiles(ctx, sub, p, sm, v.Probe, tr)
			sub.close()
			if err != nil {
				return 0, "", err
			}
			n += k
		case mode.IsRegular() || mode&fs.ModeSymlink != 0:
			n++
		}
	}
	return n, "", nil
}

func (c *capture) overLimit() string {
	return fmt.Sprintf("larger than the size limit (%d bytes): hashed, not stored", c.opts.SizeLimit)
}

// file reads and stores one regular file (with store false, only hashes
// it: a file over the size limit). A file that changes while it is read
// is read again; one that never settles, or cannot be read, is noted as
// uncaptured and reported.
func (c *capture) file(ctx context.Context, d *dirh, p, name string, e manifest.Entry, store bool) (manifest.Entry, *cacheEntry, error) {
	var lastErr error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if err := ctx.Err(); err != nil {
			return e, nil, err
		}
		f, err := d.openFile(name)
		if _, ok := asLazyOpenError(err); ok {
			return e, nil, err // the directory's failure, not the file's
		}
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return e, nil, errVanished
			}
			lastErr = err
			continue
		}
		before, err := f.Stat()
		if err != nil || !before.Mode().IsRegular() {
			f.Close()
			lastErr = fmt.Errorf("not a regular file any more")
			continue
		}
		var h cas.Hash
		var n int64
		var sums *LargeSums
		if store {
			// Files of one directory share blocks (cas/block_group.go).
			gctx := cas.WithBlockGroup(ctx, p[:len(p)-len(name)])
			h, n, err = c.w.PutFile(gctx, &countingReader{f: f, prog: c.prog}, before.Size())
		} else {
			h, n, sums, err = c.hashLarge(ctx, p, &countingReader{f: f, prog: c.prog}, before.Size())
		}
		after, serr := f.Stat()
		f.Close()
		c.prog.HashedFiles.Add(1)
		if err != nil {
			if ctx.Err() != nil {
				return e, nil, ctx.Err()
			}
			var pe *fs.PathError
			if !errors.As(err, &pe) {
				return e, nil, fmt.Errorf("walker: %s: %w", p, err)
			}
			lastErr = err
			continue
		}
		if serr != nil {
			lastErr = serr
			continue
		}
		sb, sa := statFunc(before), statFunc(after)
		if sb != sa || n != sa.size {
			lastErr = fmt.Errorf("changed while being read")
			continue
		}
		e.Hash, e.Size, e.Mode = h, n, manifest.ModeOf(after.Mode())
		setOwner(&e, after)
		if !store {
			e.Uncaptured = true
			c.uncapturedLarge(p, &e, sums)
			return e, &cacheEntry{name: name, st: sa, hash: h}, nil
		}
		c.add(func(s *Stats) { s.Bytes += n })
		return e, &cacheEntry{name: name, st: sa, hash: h, stored: true}, nil
	}
	c.problem(p, lastErr)
	e.Uncaptured = true
	c.uncaptured(p, &e, "not captured: "+lastErr.Error())
	return e, nil, nil
}

// statFunc extracts change-detection data; tests replace it to simulate
// platforms without ctime (where the racy rule alone must catch edits).
var statFunc = statOf

// lazyOpenError: directory d, first lstat'ed by path, could not be
// opened later. It is reported as d's failed open; what fails below d
// because of it returns it up to d.
type lazyOpenError struct {
	d   *dirh
	err error
}

func (e *lazyOpenError) Error() string { return e.err.Error() }
func (e *lazyOpenError) Unwrap() error { return e.err }

// asLazyOpenError returns err's *lazyOpenError, if it has one.
func asLazyOpenError(err error) (*lazyOpenError, bool) {
	if err == nil {
		return nil, false
	}
	var le *lazyOpenError
	return le, errors.As(err, &le)
}

// errRelist: a name of the listing a record vouched for was not found
// by path. The directory is listed again from its descriptor. (So an
// encrypted directory is, whose names differ with its key present or
// not while its stat does not.)
var errRelist = errors.New("walker: vouched listing not found, list again")

// errVanished: the file or directory was deleted between the listing and
// the read; it is simply not part of the snapshot.
var errVanished = errors.New("walker: file vanished")

func openNoAtime(d *os.Root, name string) (*os.File, error) {
	if noAtime != 0 {
		if f, err := d.OpenFile(name, os.O_RDONLY|noAtime, 0); err == nil {
			return f, nil
		}
	}
	return d.Open(name)
}

// readSmall reads a small file (an ignore file) that open opens; at
// most 4 MiB are read.
func readSmall(open func(string) (*os.File, error), name string) ([]byte, error) {
	f, err := open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 4<<20))
}

type countingReader struct {
	f    *os.File
	prog *Progress
}

func (r *countingReader) Read(p []byte) (int, error) {
	n, err := r.f.Read(p)
	r.prog.HashedBytes.Add(int64(n))
	return n, err
}
