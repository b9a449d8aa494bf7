// What a capture is given and what it returns.

package walker

import (
	"sync/atomic"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
)

// Options configure a capture. The zero value uses the defaults.
type Options struct {
	// SizeLimit: regular files larger than this are uncaptured. 0 means
	// DefaultSizeLimit; negative means no limit.
	SizeLimit int64
	// LargeDirFiles: a directory absent from Previous holding at least this
	// many non-ignored files is uncaptured. 0 means DefaultLargeDirFiles;
	// negative disables the rule.
	LargeDirFiles int
	// Previous is the root tree of the work tree's previous snapshot (any
	// session). Zero means there is none, and then nothing counts as new.
	Previous cas.Hash
	// Workers bounds concurrent directory reads and file hashing. 0 means
	// the default: 4 per GOMAXPROCS, 16 to 64, so that files waiting
	// on the disk do not leave the CPUs idle (a cold capture of a tree
	// not in the page cache is as much reading as hashing and
	// compressing).
	Workers int
	// Progress, if set, is updated as the capture goes.
	Progress *Progress
	// Cache is the stat cache to consult and update; nil reads every file.
	Cache *StatCache
	// Base is the root tree of an earlier capture of this work tree with
	// the same options (typically a watcher's last capture). Used only
	// with Dirty.
	Base cas.Hash
	// Dirty reports whether directory rel (slash-separated, "" for the
	// root) or anything below it may have changed since Base was
	// captured. With Base and Dirty both set, a directory for which Dirty
	// is false and which Base holds as a captured directory is not read:
	// Base's tree is reused for it (see "Incremental capture" in the
	// package doc). Nil: every directory is read.
	Dirty func(rel string) bool
	// Uncounted: an incremental capture takes the directories Dirty
	// leaves out from Base without loading their trees. Stats then
	// count only the directories read, and a reused tree is taken even
	// if it holds entries a capture would read again (see rereads): for
	// a capture that vouches for the directories it reads alone.
	Uncounted bool
	// Names, if set with Base, Dirty and Uncounted, says which names of
	// directory rel matter (ok false: all of them, the default). Only
	// those are lstat'ed, with the names that decide the directory's
	// ignore judgement (its ignore files, ".git", the markers Evidence
	// looks for); every other entry is Base's, taken unread (see
	// names.go). Such a directory writes no stat cache record. Every
	// directory Dirty calls dirty below rel must be among the names.
	Names func(rel string) (names []string, ok bool)
	// Totals, if set, remembers the file counts of Base's trees across
	// captures, so that reused directories cost nothing to count. Without
	// it every reused tree is loaded from the store to count it.
	Totals *TreeTotals
	// LargeSums, if set, says which LargeSums to compute for a file over
	// the size limit that is read (rel: its slash-separated path), in the
	// same read as its BLAKE3 (see large.go).
	LargeSums func(rel string) (sha256, gitOID bool)
	// Trees, if set, is where the capture reads stored trees through
	// (the previous snapshot's, the base's) and where it adds the trees
	// it stored, once they are flushed (see manifest.TreeCache).
	Trees *manifest.TreeCache
	// Loader, if set, is what the capture reads stored trees through in
	// place of the store and Trees: decoded trees an operation shares
	// (a manifest.CachingLoader). The capture only reads the trees it
	// gets. Trees still receives the trees the capture stores.
	Loader manifest.Loader
	// Listing, if set, is called with the slash-separated path of each
	// directory ("" the root) before the capture opens it to read it,
	// or to count the files of a new directory; from the capture's
	// goroutines, so it must be safe for concurrent use. The directory's
	// stat and names are then taken after the call (no lazy handles).
	Listing func(rel string)
	// Index, if set, keeps the git indexes read across the captures of
	// this work tree (see GitIndexes); an incremental capture whose Base
	// it did not see made under today's indexes walks the whole tree.
	// Nil: each capture reads them afresh and trusts Base.
	Index *GitIndexes
	// ListIgnored: fill Stats.Ignored with Result.Skipped (the capture
	// then reads every directory, as without Base).
	ListIgnored bool
}

// Ignored is an entry a capture skipped (and everything below it), and
// why.
type Ignored struct {
	Path   string `json:"path"`
	Dir    bool   `json:"dir,omitempty"`
	Reason string `json:"reason"`
	// Rule says which kind of rule: "name", "evidence", "file".
	Rule string `json:"rule"`
	// File and Line name the ignore file's line (Rule "file"), Evidence
	// the marker found (Rule "evidence").
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Evidence string `json:"evidence,omitempty"`
	// Rules: for an ignore file, the hex hash of what the capture read
	// of it and applied, stored as a blob. No tree holds it, so a
	// state's record names it (model.SkipInfo). Empty: not kept (not
	// read, or not a regular file).
	Rules string `json:"rules,omitempty"`
}

// Progress counters, safe to read from another goroutine while a capture
// runs.
type Progress struct {
	Files       atomic.Int64 // files seen
	Dirs        atomic.Int64 // directories seen
	HashedFiles atomic.Int64 // files read
	HashedBytes atomic.Int64 // bytes read
}

// Problem is a path the capture could not capture, and why.
type Problem struct {
	Path string `json:"path"`
	Err  string `json:"error"`
}

// Uncaptured names a path noted without its content.
type Uncaptured struct {
	Path   string `json:"path"`
	Kind   string `json:"kind"`
	Size   int64  `json:"size,omitempty"`
	Files  int64  `json:"files,omitempty"`
	Reason string `json:"reason"`
	// New: a directory this capture left uncaptured for the first time
	// (absent from Options.Previous), which the user should hear of.
	New bool `json:"new,omitempty"`
	// Hash is a file's BLAKE3 when it was hashed (over the size limit);
	// Sums its other digests when it was read with Options.LargeSums.
	Hash cas.Hash   `json:"-"`
	Sums *LargeSums `json:"-"`
}

// Stats describe one capture.
type Stats struct {
	Files       int64        `json:"files"`           // regular files in the tree
	Dirs        int64        `json:"dirs"`            // directories (the root included)
	Symlinks    int64        `json:"symlinks"`        // symbolic links
	FIFOs       int64        `json:"fifos,omitempty"` // named pipes (recorded, never opened)
	Bytes       int64        `json:"bytes"`           // logical size of captured files
	HashedFiles int64        `json:"hashed_files"`    // files read (not trusted from the stat cache)
	HashedBytes int64        `json:"hashed_bytes"`    // bytes read
	NewBlobs    int64        `json:"new_blobs"`       // blobs added to the store
	NewBytes    int64        `json:"new_bytes"`       // stored bytes added
	Skipped     int64        `json:"skipped"`         // sockets and devices: not captured
	Uncaptured  []Uncaptured `json:"uncaptured,omitempty"`
	// Unprotected: the files over the size limit whose content no
	// reference holds (set by the caller that looks for references; see
	// package turnback), so a restore could not bring them back.
	Unprotected []Uncaptured `json:"unprotected,omitempty"`
	Problems    []Problem    `json:"problems,omitempty"`
	// Ignored: with Options.ListIgnored, the entries skipped (".git"
	// apart), outermost only.
	Ignored []Ignored `json:"ignored,omitempty"`
	// Set by an incremental capture only (Options.Base and Options.Dirty):
	// Dirs = DirsRead + DirsReused.
	DirsRead   int64 `json:"dirs_read,omitempty"`   // directories listed
	DirsReused int64 `json:"dirs_reused,omitempty"` // directories taken from Base unread
}

// Result is what Capture returns.
type Result struct {
	Root  cas.Hash
	Stats Stats
	// Skipped: every entry the capture skipped (".git" apart), outermost
	// only, sorted by path; for directories an incremental capture
	// reused, as Options.Index remembers Base's (complete whenever
	// Options.Index is set or the capture read everything).
	Skipped []Ignored
	// TrackedIgnored: what git's index tracks that a pattern of an
	// ignore file or a built-in name ignores and the captured tree
	// lacks (a file deleted but still in the index), as slash paths,
	// sorted: a file by its path, a directory absent with all it held
	// by its path and a "/".
	// At most MaxTrackedIgnored; for directories an incremental capture
	// reused, Base's as Options.Index remembers them.
	TrackedIgnored []string
}
