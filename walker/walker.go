package walker

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker/ignore"
)

// Defaults for Options.
const (
	DefaultSizeLimit     = 10 << 20
	DefaultLargeDirFiles = 200
	// maxAttempts bounds how often a file that changes while it is read
	// is read again before it is reported as unsettled.
	maxAttempts = 3
)

type capture struct {
	opts  Options
	store *cas.Store
	w     *cas.Writer
	start time.Time
	sem   chan struct{} // one token per worker goroutine
	jobs  chan func()   // to an idle worker (unbuffered: taken or not)
	done  chan struct{} // closed when the capture ends: workers exit
	prog  *Progress
	// cacheWrites are the stat cache records to write once every blob
	// they name is flushed (a record must never vouch for a missing blob).
	cacheWrites []cas.Entry
	mu          sync.Mutex
	stats       Stats
	loader      manifest.Loader
	totals      *TreeTotals // counts of reused trees (incremental capture)
	links       []linkCand  // files with more than one link (see links.go)
	// records: the stat cache read in one scan (a full capture reads
	// every directory's record); nil: each read when its directory is.
	records *cacheRecords
	// knowPrev: Options.Previous is in the store, so the directories of
	// its trees may be read from the stat cache's records (prevDir.know).
	knowPrev bool
	// track: the git indexes this capture reads (tracked.go).
	track *tracking
	// skipped: the entries skipped in the directories read; reused: the
	// directories taken from Base unread; trackedIgn: what the
	// directories read noted for Result.TrackedIgnored (all under mu).
	skipped    []Ignored
	reused     map[string]bool
	trackedIgn []string
	// partial: the directories read by name (names.go), under mu;
	// baseSkips: Base's skipped names, for them.
	partial   map[string]*partialDir
	baseSkips baseSkips
	// stored: the trees this capture stored, for Options.Trees once
	// they are flushed, up to maxStored bytes (storedBytes so far).
	stored      []storedTree
	storedBytes int
}

// maxStored bounds the trees a capture keeps for Options.Trees: a
// generation of the cache's default size (a first capture of a large
// tree would otherwise hold every tree it wrote until its end).
const maxStored = manifest.DefaultTreeCacheBytes / 2

// storedTree is a tree a capture stored: its hash and a copy of its
// encoding.
type storedTree struct {
	hash cas.Hash
	data []byte
}

// Capture walks the work tree open at root, stores every new blob and
// tree in s, and returns the root tree's address. Paths it cannot read
// are reported in Stats.Problems and noted as uncaptured; they do not
// abort the capture. Capture never writes to the work tree.
func Capture(ctx context.Context, root *os.Root, s *cas.Store, opts Options) (*Result, error) {
	if opts.SizeLimit == 0 {
		opts.SizeLimit = DefaultSizeLimit
	}
	if opts.LargeDirFiles == 0 {
		opts.LargeDirFiles = DefaultLargeDirFiles
	}
	if opts.Workers <= 0 {
		opts.Workers = min(64, max(16, 4*runtime.GOMAXPROCS(0)))
	}
	prog := opts.Progress
	if prog == nil {
		prog = &Progress{}
	}
	c := &capture{
		opts:   opts,
		store:  s,
		w:      s.NewWriter(),
		start:  time.Now(),
		sem:    make(chan struct{}, opts.Workers),
		jobs:   make(chan func()),
		done:   make(chan struct{}),
		prog:   prog,
		loader: manifest.NewCachedStoreLoader(s, opts.Trees),
		totals: opts.Totals,
	}
	defer close(c.done)
	c.track = newTracking(root, opts.Index)
	if c.incremental() && (opts.ListIgnored || opts.Index != nil && !opts.Index.isCurrent(opts.Base)) {
		// Base was captured under another git index (or is unknown to
		// opts.Index): which directories count as tracked may differ
		// anywhere, unseen by any watcher. A full walk decides afresh.
		opts.Base, opts.Dirty = cas.Hash{}, nil
		c.opts = opts
	}
	if c.totals == nil && c.incremental() {
		c.totals = NewTreeTotals()
	}
	var prev, base *prevDir
	if !opts.Previous.IsZero() {
		prev = &prevDir{hash: opts.Previous}
		if opts.Cache != nil {
			// A record names the trees below its own; those of a stored
			// snapshot are stored (gc keeps snapshots whole).
			ok, err := s.HasContent(ctx, opts.Previous)
			c.knowPrev = ok && err == nil
		}
	}
	if c.incremental() {
		if !opts.Dirty("") {
			if res, ok := c.reuseRoot(ctx); ok {
				return res, nil
			}
		}
		base = &prevDir{hash: opts.Base}
	} else {
		c.records = opts.Cache.preload(ctx)
		defer c.records.close()
	}
	if opts.Listing != nil {
		opts.Listing("")
	}
	rd, err := openRootDir(root)
	if err != nil {
		c.w.Cancel()
		return nil, err
	}
	ent, err := c.dir(ctx, rd, "", c.track.top(c), ignore.ProbeNone, prev, base)
	rd.close()
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		c.w.Cancel()
		return nil, err
	}
	if err := c.w.Flush(); err != nil {
		return nil, err
	}
	for _, t := range c.stored {
		opts.Trees.Add(t.hash, t.data)
	}
	err = opts.Cache.write(ctx, c.cacheWrites)
	c.cacheWrites = nil
	if err != nil {
		return nil, err
	}
	ws := c.w.Stats()
	c.stats.NewBlobs, c.stats.NewBytes = ws.NewBlobs, ws.NewBytes
	newRoot := ent.Hash
	if edits, complete := linkEdits(c.links); !complete && c.incremental() && (c.stats.DirsReused > 0 || len(c.partial) > 0) {
		// A link this capture did not see may sit in a directory it
		// reused: only a full walk can tell the group.
		opts.Base, opts.Dirty = cas.Hash{}, nil
		return Capture(ctx, root, s, opts)
	} else if len(edits) > 0 {
		if newRoot, err = c.applyLinks(ctx, newRoot, edits); err != nil {
			return nil, err
		}
	}
	skipped, tracked := c.allSkipped(), c.allTracked()
	c.track.done(newRoot, opts.Base, skipped, tracked)
	c.stats.HashedFiles = prog.HashedFiles.Load()
	c.stats.HashedBytes = prog.HashedBytes.Load()
	sort.Slice(c.stats.Problems, func(i, j int) bool { return c.stats.Problems[i].Path < c.stats.Problems[j].Path })
	sort.Slice(c.stats.Uncaptured, func(i, j int) bool { return c.stats.Uncaptured[i].Path < c.stats.Uncaptured[j].Path })
	if opts.ListIgnored {
		c.stats.Ignored = skipped
	}
	return &Result{Root: newRoot, Stats: c.stats, Skipped: skipped, TrackedIgnored: tracked}, nil
}

// dir captures the directory open at d (relative path rel) and returns
// its entry (Name unset); probe is what its parent's matcher left to
// evidence (an errGenerated if the listing shows it). prev is the same directory in the previous
// snapshot, nil if it had none or there is no previous snapshot; base
// is the same directory in Options.Base, nil if it has none or the
// capture is not incremental.
func (c *capture) dir(ctx context.Context, d *dirh, rel string, m *ignore.Matcher, probe ignore.Probe, prev, base *prevDir) (manifest.Entry, error) {
	if err := ctx.Err(); err != nil {
		return manifest.Entry{}, err
	}
	c.add(func(s *Stats) {
		s.Dirs++
		if c.incremental() {
			s.DirsRead++
		}
	})
	c.prog.Dirs.Add(1)
	sc := getScratch()
	defer sc.release()
	// The record is decoded into the scratch: prev may name it for its
	// subs (prevDir.know) only until this directory is done.
	var oldRec *dirRecord
	if c.records != nil && c.records.load(ctx, rel, &sc.oldRec) ||
		c.records == nil && c.opts.Cache.loadInto(ctx, rel, &sc.oldRec) {
		oldRec = &sc.oldRec
		defer func() {
			if prev != nil && prev.rec == oldRec {
				prev.rec = nil
			}
		}()
	}
	// Read by name: only some names are lstat'ed, and no record is
	// written (it would vouch for names not read).
	part := c.partialOf(ctx, rel, probe, base)
	// The directory's stat, taken before it is listed, vouches for the
	// listing its record holds, and for the one this capture records.
	dst, statted := d.stat(&sc.dirInfo)
	var names []string
	if statted && oldRec != nil && oldRec.listed && oldRec.lst == dst {
		if n, ok := oldRec.listingNames(sc.names); ok {
			names = n
			if names == nil {
				names = noNames
			}
		}
	}
	if names != nil {
		if err := d.openIfMany(len(names)); err != nil {
			return manifest.Entry{}, err
		}
	}
	if part != nil {
		// Its names are those listed (or the record's), not all
		// lstat'ed. The record's listing tells no kinds: it stands in
		// for one only when written for Base's tree, whose kinds fit
		// takes. A newer record (a capture Base is not) is listed.
		known := names
		if oldRec == nil || oldRec.tree.IsZero() || oldRec.tree != base.hash {
			known = nil
		}
		if n := part.fit(d, sc, known, c.baseSkips.in(c, rel)); n != nil {
			names = n
		} else {
			part = nil
		}
	}
	ents, err := d.list(sc, names)
	if err == errRelist && part == nil {
		ents, err = d.list(sc, nil)
	}
	if err == nil && d.byPath() && !vouchedByRecord(ents, oldRec) {
		// Something changed: its names are read again through its own
		// descriptor, checked to be the directory lstat'ed (a path may
		// lead elsewhere by now), so that no stat found by path is
		// recorded unless the record vouches for its inode.
		if err = d.ensureOpen(); err == nil {
			ents, err = d.list(sc, names)
		}
	}
	if part != nil && (err != nil || !d.exactNames(ents) || c.newRepo(rel, ents)) {
		// A directory read by name fails as a listing would, but for
		// an empty one: the listing decides. So it does where a name
		// found may not be the one stored (names.go).
		part = nil
		ents, err = d.list(sc, nil)
	}
	if err != nil {
		return manifest.Entry{}, err
	}
	// Its ignore files, evidence and symlinks are read through its
	// descriptor: a lazy handle that cannot be opened fails here, as
	// its listing would have, not file by file.
	if readsFiles(rel, probe, ents) {
		if err := d.ensureOpen(); err != nil {
			return manifest.Entry{}, err
		}
	}
	if ev := evidence(d, rel, probe, ents); ev != "" {
		return manifest.Entry{}, &errGenerated{ev}
	}
	m, rulesRead := loadIgnoresRead(d, rel, m, ents)
	m = c.track.nested(c, rel, m, ents)
	if c.knowPrev {
		prev.know(oldRec)
	}
	sc.out = sized(sc.out, len(ents))
	sc.keep = sized(sc.keep, len(ents))
	sc.fresh = sized(sc.fresh, len(ents)) // entries of oldRec where it is trusted
	out, keep, fresh := sc.out, sc.keep, sc.fresh
	var firstErr error
	var errMu sync.Mutex
	fail := func(err error) {
		errMu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		errMu.Unlock()
	}
	var wg sync.WaitGroup
	// Counted here and added to the stats once: a lock per directory,
	// not one per file.
	var nFiles, nBytes, nLinks, nFIFOs, nSkipped int64
	cur := 0 // oldRec's entries before it are named before this entry
	for i, de := range ents {
		name := de.name
		if de.err != nil {
			c.problem(manifest.JoinPath(rel, name), de.err)
			continue
		}
		fi := de.fi
		mode := fi.Mode()
		v := m.Judge(sc.joined(rel, name), mode.IsDir())
		if v.Ignored {
			rules, err := c.keepRules(ctx, rulesContent(rulesRead, name, mode))
			if err != nil {
				fail(err)
				continue
			}
			c.ignored(rel, name, fi, v, rules)
			continue
		}
		if isStagingName(name) {
			continue
		}
		e := manifest.Entry{Name: name, Mode: manifest.ModeOf(mode)}
		setOwner(&e, fi)
		switch {
		case mode.IsDir():
			e.Kind = manifest.KindDir
			keep[i] = true
			p := manifest.JoinPath(rel, name)
			subBase, reused := c.reuse(ctx, p, name, base)
			if reused != nil {
				e.Hash = reused.Hash
				out[i] = e
				continue
			}
			// out[i] holds e until the goroutine replaces it. Its
			// closure is made per subdirectory: it holds little (e, fi
			// and name are out's and ents', of v only what subdir reads).
			out[i] = e
			i, src, probe, sm := i, v.Source, v.Probe, m
			if src == ignore.SourceForced {
				sm = m.Exclude(v) // only its tracked paths
			}
			c.spawn(&wg, func() {
				e := &out[i]
				sub, err := c.subdir(ctx, d, p, e.Name, ents[i].fi, sm, src, probe, prev, subBase)
				if errors.Is(err, errVanished) {
					keep[i] = false
					return
				}
				if ev, ok := generated(err); ok {
					keep[i] = false
					c.ignored(rel, e.Name, ents[i].fi, ignore.Verdict{Ignored: true, Source: ignore.SourceEvidence, Evidence: ev}, "")
					return
				}
				if err != nil {
					fail(err)
					return
				}
				sub.Name, sub.Mode = e.Name, e.Mode
				sub.Owned, sub.UID, sub.GID = e.Owned, e.UID, e.GID
				*e = sub
			})
		case mode&fs.ModeSymlink != 0:
			target, err := d.readlink(name)
			if err != nil {
				c.problem(manifest.JoinPath(rel, name), err)
				continue
			}
			if target == "" || len(target) > 4096 {
				c.problem(manifest.JoinPath(rel, name), fmt.Errorf("symlink target of %d bytes cannot be recorded", len(target)))
				continue
			}
			e.Kind, e.Target, e.Size = manifest.KindSymlink, target, int64(len(target))
			out[i], keep[i] = e, true
			nLinks++
		case mode.IsRegular():
			e.Kind = manifest.KindFile
			e.Size = fi.Size()
			keep[i] = true
			c.prog.Files.Add(1)
			nFiles++
			// A file over the size limit is hashed but not stored, so a
			// same-size edit still changes the tree.
			over := c.opts.SizeLimit > 0 && fi.Size() > c.opts.SizeLimit
			st := statFunc(fi)
			if ce := oldRec.lookupFrom(name, &cur); ce != nil && ce.st == st && (ce.stored || over) {
				e.Hash = ce.hash
				e.Uncaptured = over
				out[i] = e
				fresh[i] = ce // ce.name == name, ce.st == st
				if over {
					c.uncaptured(manifest.JoinPath(rel, name), &out[i], c.overLimit())
				} else {
					nBytes += e.Size
				}
				continue
			}
			i, e, p := i, e, manifest.JoinPath(rel, name)
			c.spawn(&wg, func() {
				fe, ce, err := c.file(ctx, d, p, name, e, !over)
				if errors.Is(err, errVanished) {
					keep[i] = false
					c.prog.Files.Add(-1)
					c.add(func(s *Stats) { s.Files-- })
					return
				}
				if err != nil {
					fail(err)
					return
				}
				out[i], fresh[i] = fe, ce
			})
		case mode&fs.ModeNamedPipe != 0 && recordFIFOs:
			// Recorded, never opened (opening a fifo blocks); Linux only.
			e.Kind = manifest.KindFIFO
			out[i], keep[i] = e, true
			nFIFOs++
		default:
			nSkipped++
		}
	}
	wg.Wait()
	c.add(func(s *Stats) {
		s.Files += nFiles
		s.Bytes += nBytes
		s.Symlinks += nLinks
		s.FIFOs += nFIFOs
		s.Skipped += nSkipped
	})
	if firstErr != nil {
		return manifest.Entry{}, firstErr
	}
	for i := range ents {
		if keep[i] && out[i].Kind == manifest.KindFile {
			c.noteLink(rel, ents[i].name, ents[i].fi, &out[i])
		}
	}
	window := d.racyWindow()
	// The tree's entries are out's kept ones, compacted in place (entry
	// k is written only once entries 0..k of out have been read).
	tree := &manifest.Tree{Entries: out[:0]}
	// The new record's entries: a prefix of the old record's own while
	// they agree (an unchanged directory builds none), else sc.rec's.
	newRec := &sc.newRec
	*newRec = dirRecord{subs: newRec.subs[:0]}
	var oldEntries []cacheEntry
	if oldRec != nil {
		oldEntries = oldRec.entries
	}
	same, own := 0, false
	defer func() {
		if own {
			sc.rec = newRec.entries
		}
		newRec.entries = nil // never the old record's array once done
	}()
	for i := range ents {
		if !keep[i] {
			continue
		}
		tree.Entries = append(tree.Entries, out[i])
		if ce := fresh[i]; ce != nil && trustedWithin(ce.st, c.start, window) {
			switch {
			case own:
				newRec.entries = append(newRec.entries, *ce)
			case same < len(oldEntries) && oldEntries[same] == *ce:
				same++
			default:
				newRec.entries = append(append(sc.rec[:0], oldEntries[:same]...), *ce)
				own = true
			}
		}
		if e := &tree.Entries[len(tree.Entries)-1]; e.Kind == manifest.KindDir {
			newRec.subs = append(newRec.subs, subEntry{name: e.Name, hash: e.Hash, uncaptured: e.Uncaptured, files: e.Files})
		}
	}
	if !own {
		newRec.entries = oldEntries[:same]
	}
	if part != nil {
		tree.Entries = c.takeUnnamed(rel, part, tree.Entries)
	}
	c.noteTrackedIgnored(sc, rel, m, tree)
	if statted && trustedWithin(dst.fileStat, c.start, window) {
		newRec.listed, newRec.lst = true, dst
		newRec.extra = listingExtra(sc.names, newRec, sc.extra)
		sc.extra = newRec.extra
	}
	// The encoding is only hashed, and stored (copied) when new: it is
	// built in the scratch buffer.
	data, err := tree.AppendEncode(sc.enc[:0])
	sc.enc = data
	if err != nil {
		return manifest.Entry{}, fmt.Errorf("walker: %s: %w", manifest.DisplayPath(rel), err)
	}
	h := cas.Sum(data)
	newRec.tree = h
	if prev == nil || h != prev.hash {
		// A tree equal to the previous snapshot's is already stored.
		if h, err = c.w.PutBlob(ctx, data); err != nil {
			return manifest.Entry{}, err
		}
		if c.opts.Trees != nil {
			c.mu.Lock()
			if c.storedBytes+len(data) <= maxStored {
				c.stored = append(c.stored, storedTree{h, slices.Clone(data)})
				c.storedBytes += len(data)
			}
			c.mu.Unlock()
		}
	}
	c.noteTotals(h, tree) // Options.Totals: counted as written (incremental.go)
	if c.opts.Cache != nil && part == nil && !sameRecord(oldRec, newRec) && !(oldRec == nil && len(newRec.entries) == 0 && len(newRec.subs) == 0 && !newRec.listed) {
		c.mu.Lock()
		c.cacheWrites = append(c.cacheWrites, cas.Entry{Key: cacheKey(rel), Value: encodeRecord(newRec)})
		c.mu.Unlock()
	}
	return manifest.Entry{Kind: manifest.KindDir, Hash: h}, nil
}
