package turnback

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/handoff"
	"github.com/turnback/turnback/internal/sessname"
	"github.com/turnback/turnback/internal/storedir"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/restore"
	"github.com/turnback/turnback/walker"
	"github.com/turnback/turnback/watch/daemon"
)

// Options configure Open. The zero value is usable.
type Options struct {
	// Store is the store directory; empty means DefaultStoreDir(workTree).
	Store string
	// Session names the stack of turns to work on; empty means "default".
	Session string
	// SizeLimit and LargeDirFiles tune what is captured (see walker.Options).
	SizeLimit     int64
	LargeDirFiles int
	// LockWait bounds the wait for another process; 0 means
	// DefaultLockWait, negative means fail at once.
	LockWait time.Duration
	// Force allows a work tree that is / or the home directory.
	Force bool
	// Holder describes this process to others waiting for the store.
	Holder string
	// OnWait is called once if Open has to wait for another process
	// (past a few short pauses).
	OnWait func(holder string)
	// StopWaiting, if set, is asked while Open waits for another
	// process: true ends the wait at once with ErrBusy. Without Local,
	// Open also stops waiting when a watch daemon that took the store
	// answers on its socket, and then runs the Repo's methods there.
	StopWaiting func() bool
	// Progress, if set, receives counters of every capture, and
	// RestoreProgress those of every undo, redo and restore.
	Progress        *walker.Progress
	RestoreProgress *restore.Progress
	// KeepTurns and KeepAge are the automatic retention policy (see
	// GCOptions; zero means DefaultKeepTurns and DefaultKeepAge).
	KeepTurns int
	KeepAge   time.Duration
	// Access says whether Open may write to the store (see Access).
	Access Access
	// WriteNow opens the store's database for writing at once rather
	// than once an operation writes much (see AccessWrite): for work
	// that always does, such as gc. Only a matter of speed. (An undo,
	// redo or restore writes little as a rule: it reserves the space
	// of its commit, cas.Badger.Reserve.)
	WriteNow bool
	// Salvage: a store whose write log (cas: the overlay log) is damaged
	// is opened for writing anyway, keeping every frame that checks out
	// and moving the damaged log aside (Repo.Salvaged); without it a
	// writer refuses and a reader shows what it can (Repo.LogDamage).
	// For verify --repair and recover.
	Salvage bool
	// Agent names the agent whose hook this Repo records for ("claude",
	// "gemini", ...): Snap records it on a session that has none yet
	// (SessionInfo.Agent). Empty for none.
	Agent string
	// Now, if set, is the clock turns are stamped with and LatestSession
	// measures ActiveWindow from (tests); nil means time.Now.
	Now func() time.Time
	// Local opens the store in this process even when a daemon serves
	// it (which Open then waits for, as for any holder): for the daemon
	// itself.
	Local bool
	// DeferRecovery leaves an undo, redo or restore that stopped part
	// way as it is when Open finds one: the first operation finishes it,
	// unless it is Recover, which may roll it back instead (turnback
	// recover --rollback). Without it, Open finishes it at once.
	DeferRecovery bool
}

// Access is how Open treats the store.
type Access int

const (
	// AccessWrite opens the store for writing, creating it on first use.
	// Its database is opened read-only at first, and a command that
	// records little commits to the store's overlay log instead, never
	// paying the database's write-mode open and close; one that records
	// much (a large capture, any undo, redo or restore) opens it for
	// writing then (see cas.BadgerOptions.Deferred, Options.WriteNow).
	AccessWrite Access = iota
	// AccessRead opens the store read-only: nothing is created or written
	// (no store directory, no marker, no lock file), it works on a full
	// disk and on a store the process may not write, and it shares the
	// store with other readers. A folder without a store reads as an
	// empty one. The exception: a restore a crash interrupted is finished
	// first (the store is then opened for writing, when it can be), and
	// so is a memtable a killed process left torn (see cas.OpenBadger). Operations that would record anything
	// keep it in memory and lose it at Close (a capture for Status works;
	// Snap, End, Undo, Redo, Restore and GC fail with ErrReadOnly).
	AccessRead
	// AccessReadPreferWrite opens the store for writing when it exists,
	// may be written and has room (see cas.NoSpaceError), and as
	// AccessRead otherwise: for Status, which records no turn but keeps
	// what it read to make the next capture faster.
	AccessReadPreferWrite
)

// Repo is an open store bound to one work tree and one session. Its
// methods are safe for concurrent use; they run one at a time (across
// every view of the same store, see View).
type Repo struct {
	*repoCore
	session string
	opts    Options
	hook    func(step string) error
	view    bool // made by View: Close leaves the store open
	// be runs the methods: here (localRepo) or, when a daemon holds
	// the store, in the daemon (internal/served; repoCore is then an
	// empty one). Open chooses it (backend.go).
	be backend
}

// repoCore is what every view of an open store shares.
type repoCore struct {
	// storeLock holds one token while an operation runs: operations on
	// the store (of every view) run one at a time (lock.go).
	storeLock chan struct{}
	workTree  string
	storeDir  string
	readOnly  bool // opened with AccessRead (or fell back to it)
	backend   database
	store     *cas.Store
	cache     *walker.StatCache
	// trees: the encodings of trees this process read or stored lately
	// (loader); gc clears it.
	trees *manifest.TreeCache
	// opTrees: the decoded trees of the running undo, redo or restore
	// (optrees.go), nil between them.
	opTrees atomic.Pointer[manifest.CachingLoader]
	// gitIdx: the git indexes captures read, kept by their stat.
	gitIdx *walker.GitIndexes
	closed bool
	// recover: a restore failed part way; its journal is finished or
	// rolled back before the next operation (a process that exits does
	// this at its next Open).
	recover bool
	// recovered: Open finished an interrupted restore (Recover says so).
	recovered bool
	watch     *watchState      // set by Watch
	handoff   *handoff.Handoff // set by handoff.Arm (handoff.go)
	last      lastCapture      // the last capture (scoped.go)
	// after: work the operation holding the store lock left for its end
	// (lock.go).
	after []func()
	// holder describes the operation that holds the store lock (views wait
	// for it).
	holderMu sync.Mutex
	holder   string
	// tail: closed once the work the last operation left for later
	// (lock.go) is done and the store lock given back; nil when none runs.
	// Guarded by holderMu.
	tail chan struct{}
	// proved: the reference verifyRef read content back from (refsource.go).
	proved provedRefs
}

// ValidSession checks a session name against the one rule every layer
// uses (package sessname): 1 to 200 bytes of UTF-8, not "." or "..", no
// slash, backslash, space or control character. A refusal wraps
// ErrBadSession.
func ValidSession(name string) error {
	if err := sessname.Check(name); err != nil {
		return fmt.Errorf("turnback: %w", err)
	}
	return nil
}

// Open opens (creating on first use) the store of workTree. If another
// process holds the store, Open waits up to Options.LockWait and then
// returns an error wrapping ErrBusy that names the holder.
func Open(ctx context.Context, workTree string, opts Options) (*Repo, error) {
	if opts.Local {
		return open(ctx, workTree, opts)
	}
	// A daemon that starts while Open waits for the store holds it and
	// answers soon after: Open then goes to it at once rather than wait
	// out LockWait (a daemon that was stopping is waited for again).
	storeDir := ""
	if wt, err := storedir.Canonical(workTree); err == nil {
		storeDir, _ = storedir.DirOf(wt, opts.Store)
	}
	user := opts.StopWaiting
	for try := 0; ; try++ {
		cut := false
		o := opts
		o.StopWaiting = func() bool {
			if user != nil && user() {
				return true
			}
			cut = daemon.Answers(storeDir)
			return cut
		}
		r, err := open(ctx, workTree, o)
		if !cut || !errors.Is(err, ErrBusy) || try == 2 {
			return r, err
		}
	}
}

func open(ctx context.Context, workTree string, opts Options) (*Repo, error) {
	wt, err := storedir.Canonical(workTree)
	if err != nil {
		return nil, err
	}
	if !opts.Force {
		if err := storedir.CheckScope(wt); err != nil {
			return nil, err
		}
	}
	if opts.Session == "" {
		opts.Session = DefaultSession
	}
	if err := ValidSession(opts.Session); err != nil {
		return nil, err
	}
	storeDir, err := storedir.DirOf(wt, opts.Store)
	if err != nil {
		return nil, err
	}
	if !opts.Local {
		// A daemon that serves the store runs the methods: no wait.
		if r, ok, err := openRemote(ctx, wt, storeDir, opts); ok || err != nil {
			return r, err
		}
	}
	// Check before creating anything: a refused store must leave no trace
	// in the work tree.
	realStore, err := storedir.ResolveExisting(storeDir)
	if err != nil {
		return nil, fmt.Errorf("turnback: store %s: %w", storeDir, err)
	}
	if storedir.Within(wt, realStore) {
		return nil, &storedir.InWorkTreeError{Store: storeDir, WorkTree: wt}
	}
	// A store is a store: an absent or empty directory, or one with the
	// marker (or an earlier turnback's store); anything else is refused
	// before anything is written there.
	state, marker, err := storedir.Inspect(ctx, storeDir)
	if err != nil {
		return nil, err
	}
	if rec, ok := storedir.RecordedWorkTree(storeDir); ok && rec != wt {
		return nil, fmt.Errorf("turnback: store %s belongs to work tree %s, not %s", storeDir, rec, wt)
	}
	if marker != nil && marker.ExactWorkTree() != "" && marker.ExactWorkTree() != wt {
		return nil, fmt.Errorf("turnback: store %s belongs to work tree %s, not %s", storeDir, marker.ExactWorkTree(), wt)
	}
	wait := opts.LockWait
	if wait == 0 {
		wait = DefaultLockWait
	} else if wait < 0 {
		wait = 0
	}
	readOnly := opts.Access == AccessRead
	if opts.Access == AccessReadPreferWrite {
		readOnly = state == storedir.Absent || !storedir.Writable(storeDir)
	}
	if readOnly && state != storedir.Absent && storedir.RestorePending(storeDir) && storedir.Writable(storeDir) {
		// An interrupted undo, redo or restore is finished (or its staged
		// files removed) by the next command, whatever it is, before it
		// answers: a reading command too (DESIGN: all or nothing).
		readOnly = false
	}
	// A writer opens Badger for writing only if it writes much: a
	// command that records a few records commits them to the overlay
	// log (see cas.BadgerOptions.Deferred).
	bo := cas.BadgerOptions{LockWait: wait, Holder: opts.Holder, OnWait: opts.OnWait, ReadOnly: readOnly, Name: storeDir,
		StopWaiting: opts.StopWaiting, Deferred: !readOnly && !opts.WriteNow, Salvage: opts.Salvage}
	var b database
	if readOnly {
		b, err = openReadOnly(ctx, storeDir, state, bo)
	} else {
		b, err = openWritable(ctx, storeDir, wt, state, marker, bo)
		if opts.Access == AccessReadPreferWrite && isLogDamage(err) {
			// status shows what it can of a damaged store, as readers do.
			readOnly, bo.ReadOnly, bo.Deferred = true, true, false
			b, err = openReadOnly(ctx, storeDir, state, bo)
		}
	}
	if err != nil {
		if errors.Is(err, cas.ErrBusy) {
			return nil, err
		}
		if !strings.HasPrefix(err.Error(), "turnback") {
			err = fmt.Errorf("turnback: %w", err)
		}
		return nil, err
	}
	if err := afterSalvage(ctx, b); err != nil {
		b.Close()
		return nil, err
	}
	s, err := cas.NewStore(b)
	if err != nil {
		b.Close()
		return nil, err
	}
	r := &Repo{
		repoCore: &repoCore{
			storeLock: make(chan struct{}, 1),
			workTree:  wt,
			storeDir:  storeDir,
			readOnly:  readOnly,
			backend:   b,
			store:     s,
			cache:     walker.NewStatCache(b),
			trees:     manifest.NewTreeCache(0),
			gitIdx:    &walker.GitIndexes{},
		},
		session: opts.Session,
		opts:    opts,
	}
	r.be = localRepo{r}
	if readOnly {
		// A read-only open cannot finish an interrupted restore; it must
		// not answer as if the folder were in a known state either.
		if storedir.RestorePending(storeDir) {
			r.Close()
			return nil, &UnfinishedError{Err: fmt.Errorf("%w: its journal is in %s and the store cannot be written here", restore.ErrUnfinished, storeDir)}
		}
	} else if opts.DeferRecovery && storedir.RestorePending(storeDir) {
		// Left for Recover; any other operation finishes it first (lock).
		r.recover = true
	} else if err := r.recoverRestore(ctx); err != nil {
		if !errors.Is(err, ErrUnfinished) {
			r.Close()
			return nil, err
		}
		// Every operation tries again first, and fails while it cannot
		// finish; Recover (turnback recover) can still run.
		r.recover = true
	}
	return r, nil
}

// openWritable opens the store for writing, creating it (marker first)
// when absent, and marking an earlier turnback's store.
func openWritable(ctx context.Context, storeDir, wt string, state storedir.State, marker *storedir.Marker, bo cas.BadgerOptions) (database, error) {
	// On a full disk, fail before the marker or the directory is written.
	if err := cas.CheckRoom(filepath.Join(storeDir, "db"), storeDir); err != nil {
		return nil, err
	}
	if state == storedir.Absent {
		if err := os.MkdirAll(storeDir, 0o700); err != nil {
			return nil, fmt.Errorf("turnback: create store: %w", err)
		}
	}
	if state == storedir.Absent {
		// A new store: the marker goes first, so whatever a crash
		// leaves in the directory is known to be ours.
		if err := storedir.WriteMarker(storeDir, wt); err != nil {
			return nil, err
		}
	}
	b, err := cas.OpenBadger(ctx, filepath.Join(storeDir, "db"), bo)
	if err != nil {
		return nil, err
	}
	if state == storedir.Legacy || marker != nil && marker.Version < storedir.FormatVersion {
		// An earlier turnback's store is marked only once its database
		// opened: one refused (damaged metadata, say) stays untouched.
		// One of an earlier version is marked with this one before
		// anything of this version (the overlay log) is written.
		if err := storedir.WriteMarker(storeDir, wt); err != nil {
			b.Close()
			return nil, err
		}
	}
	if _, ok := storedir.RecordedWorkTree(storeDir); !ok {
		if err := storedir.RecordWorkTree(storeDir, wt); err != nil {
			b.Close()
			return nil, fmt.Errorf("turnback: record work tree: %w", err)
		}
	}
	return b, nil
}

// openReadOnly opens the store without writing; a folder without a
// store (or whose store has no database yet) reads as an empty one.
func openReadOnly(ctx context.Context, storeDir string, state storedir.State, bo cas.BadgerOptions) (database, error) {
	if state != storedir.Absent {
		b, err := cas.OpenBadger(ctx, filepath.Join(storeDir, "db"), bo)
		if err == nil {
			return b, nil
		}
		if !errors.Is(err, cas.ErrNoStore) {
			return nil, err
		}
	}
	return cas.OpenBadgerEmpty()
}

// ReadOnly reports whether r was opened read-only (see AccessRead).
func (r *Repo) ReadOnly() bool { return r.readOnly }

// WorkTree returns the absolute path of the work tree.
func (r *Repo) WorkTree() string { return r.workTree }

// StoreDir returns the store directory.
func (r *Repo) StoreDir() string { return r.storeDir }

// Session returns the session this Repo works on.
func (r *Repo) Session() string { return r.session }

// Close releases the store (and stops watching, see Watch). Closing a
// view (see View) does nothing.
func (r *Repo) Close() error { return r.be.Close(r.view) }

func (l localRepo) Close(view bool) error {
	r := l.r
	if view {
		return nil
	}
	r.hold()
	defer r.unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	r.stopWatch()
	return r.store.Close()
}

// View returns a Repo that shares r's open store (and its lock, watcher
// and one-at-a-time rule) but works on o.Session with o's capture,
// retention, progress and Force settings; its LockWait, Holder and
// OnWait apply to waiting for another view's operation (ErrBusy after
// LockWait, as Open does for another process). o.Store is ignored. Closing a view does nothing; closing r ends every
// view. A long-running process (the watch daemon) serves each request
// through a view of its own.
func (r *Repo) View(o Options) (*Repo, error) {
	if o.Session == "" {
		o.Session = DefaultSession
	}
	if err := ValidSession(o.Session); err != nil {
		return nil, err
	}
	v := &Repo{repoCore: r.repoCore, session: o.Session, opts: o, view: true, hook: r.hook}
	v.be = r.viewOf(v)
	return v, nil
}

// loader reads trees from the store through the process's tree cache:
// what every operation uses, except those whose point is to read the
// store itself (verify, verifyUse, gc). During an undo, redo or restore
// it is that operation's shared decoded trees (optrees.go).
func (r *Repo) loader() manifest.Loader {
	if c := r.opTrees.Load(); c != nil {
		return c
	}
	return manifest.NewCachedStoreLoader(r.store, r.trees)
}
