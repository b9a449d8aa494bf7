package walker

import (
	"context"
	"os"
	"runtime"
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
	jobs  chan task     // to an idle worker (unbuffered: taken or not)
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
	// lists: the arrays of the directories in progress (arrays.go).
	lists *arrays
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
		jobs:   make(chan task),
		done:   make(chan struct{}),
		prog:   prog,
		loader: opts.Loader,
		totals: opts.Totals,
		lists:  getArrays(),
	}
	defer close(c.done)
	if c.loader == nil {
		c.loader = manifest.NewCachedStoreLoader(s, opts.Trees)
	}
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
	c.lists.release() // every directory is done
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
