package manifest

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/turnback/turnback/cas"
)

// Limits enforced by Validate and Decode.
const (
	// ModeMask holds the permission bits an Entry may carry: rwx for
	// user, group and other plus setuid, setgid and sticky.
	ModeMask = 0o7777
	// MaxNameLen is the longest entry name, in bytes.
	MaxNameLen = 255
	// MaxTargetLen is the longest symlink target, in bytes.
	MaxTargetLen = 4096
	// MaxSize bounds Entry.Size and Entry.Files.
	MaxSize = 1 << 62
	// MaxLinkLen is the longest Entry.LinkTo, in bytes.
	MaxLinkLen = 4096
)

// ErrMalformed is wrapped by every error that reports a tree breaking the
// rules of the format, whether found by Decode or by Validate.
var ErrMalformed = errors.New("manifest: malformed tree")

// Kind is the type of a directory entry.
type Kind uint8

// The kinds of entry a tree may hold.
const (
	KindFile    Kind = 1
	KindDir     Kind = 2
	KindSymlink Kind = 3
	// KindFIFO is a named pipe: recorded (name, mode, owner), never
	// opened, and recreated with mkfifo. Trees holding one are version 2.
	KindFIFO Kind = 4
)

// String returns "file", "dir", "symlink" or "fifo".
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

var kindNames = [...]string{KindFile: "file", KindDir: "dir", KindSymlink: "symlink", KindFIFO: "fifo"}

// Entry is one name in a directory.
type Entry struct {
	Name       string   // one path component
	Kind       Kind     // file, dir or symlink
	Mode       uint32   // permission bits only (ModeMask), not fs.FileMode type bits
	Size       int64    // file: content length; symlink: len(Target); dir: 0
	Hash       cas.Hash // file: content hash; dir: tree hash; zero when Uncaptured and for symlinks
	Target     string   // symlink target: data, never followed
	Uncaptured bool     // present on disk, content not stored (files and dirs only)
	Files      int64    // uncaptured dir only: non-ignored files inside, recursively

	// Owned says UID and GID are recorded (every entry captured on unix
	// since version 2; trees written before have none). Zero otherwise.
	Owned    bool
	UID, GID uint32
	// LinkTo marks a file that is one of several hard links to the same
	// file inside the work tree: the slash-separated path, relative to
	// the work tree, of the group's first member in tree order (the
	// first itself included). Empty for a file with no other link in
	// the work tree. See "Hard links" in the package doc.
	LinkTo string
}

// SameOwner reports whether e and o have the same owner as far as both
// know it: an entry with no recorded owner (a tree written before owners
// were recorded) matches any owner.
func (e *Entry) SameOwner(o *Entry) bool {
	return !e.Owned || !o.Owned || e.UID == o.UID && e.GID == o.GID
}

// needsV2 reports whether e uses a field that version 1 cannot encode.
func (e *Entry) needsV2() bool {
	return e.Owned || e.Kind == KindFIFO || e.LinkTo != ""
}

// Equal reports whether e and o agree in every field. Two nil entries are
// equal; a nil and a non-nil one are not.
func (e *Entry) Equal(o *Entry) bool {
	if e == nil || o == nil {
		return e == o
	}
	return *e == *o
}

// IsCapturedDir reports whether e is a directory whose subtree is stored,
// that is, one that Walk and Diff descend into.
func (e *Entry) IsCapturedDir() bool {
	return e.Kind == KindDir && !e.Uncaptured
}

// Tree is one directory: its entries sorted by Name in byte order, names
// unique. A nil *Tree is read as the empty tree.
type Tree struct {
	Entries []Entry
}

// Sort orders the entries by name. It does not remove duplicates; Validate
// reports them.
func (t *Tree) Sort() {
	if t == nil {
		return
	}
	slices.SortStableFunc(t.Entries, func(a, b Entry) int {
		return strings.Compare(a.Name, b.Name)
	})
}

// Lookup finds the entry called name by binary search. The tree must be
// sorted. The returned pointer points into t.Entries.
func (t *Tree) Lookup(name string) (*Entry, bool) {
	if t == nil {
		return nil, false
	}
	i, ok := slices.BinarySearchFunc(t.Entries, name, func(e Entry, n string) int {
		return strings.Compare(e.Name, n)
	})
	if !ok {
		return nil, false
	}
	return &t.Entries[i], true
}

// Validate checks every rule Decode enforces: valid, sorted, unique names
// and fields consistent with each entry's kind. Errors wrap ErrMalformed.
func (t *Tree) Validate() error {
	if t == nil {
		return nil
	}
	for i := range t.Entries {
		e := &t.Entries[i]
		if err := checkEntry(e); err != nil {
			return fmt.Errorf("%w: entry %d %q: %s", ErrMalformed, i, e.Name, err)
		}
		if i > 0 && t.Entries[i-1].Name >= e.Name {
			return fmt.Errorf("%w: entry %d %q: %s", ErrMalformed, i, e.Name, orderProblem(t.Entries[i-1].Name, e.Name))
		}
	}
	return nil
}

func orderProblem(prev, name string) string {
	if prev == name {
		return "duplicate name"
	}
	return fmt.Sprintf("not sorted: follows %q", prev)
}

// ValidName reports whether name can be one path component in a tree: not
// empty, not "." or "..", no '/' and no NUL, at most MaxNameLen bytes.
func ValidName(name string) error {
	if msg := nameProblem(name); msg != "" {
		return fmt.Errorf("manifest: invalid name %q: %s", name, msg)
	}
	return nil
}

func nameProblem(name string) string {
	switch {
	case name == "":
		return "empty"
	case name == "." || name == "..":
		return "reserved"
	case len(name) > MaxNameLen:
		return fmt.Sprintf("longer than %d bytes", MaxNameLen)
	case strings.IndexByte(name, '/') >= 0:
		return "contains '/'"
	case strings.IndexByte(name, 0) >= 0:
		return "contains NUL"
	}
	return ""
}

func targetProblem(target string) string {
	switch {
	case target == "":
		return "empty symlink target"
	case len(target) > MaxTargetLen:
		return fmt.Sprintf("symlink target longer than %d bytes", MaxTargetLen)
	case strings.IndexByte(target, 0) >= 0:
		return "symlink target contains NUL"
	}
	return ""
}

// linkProblem checks a LinkTo path: valid names joined by '/', at most
// MaxLinkLen bytes.
func linkProblem(p string) string {
	if len(p) > MaxLinkLen {
		return fmt.Sprintf("link group path longer than %d bytes", MaxLinkLen)
	}
	for name := range strings.SplitSeq(p, "/") {
		if msg := nameProblem(name); msg != "" {
			return "link group path component: " + msg
		}
	}
	return ""
}

// entryError is a rule violation inside one entry; the caller adds where.
type entryError string

func (e entryError) Error() string { return string(e) }

// checkEntry applies the per-entry rules. Its errors carry no prefix.
func checkEntry(e *Entry) error {
	if msg := nameProblem(e.Name); msg != "" {
		return entryError("invalid name: " + msg)
	}
	if e.Mode > ModeMask {
		return entryError(fmt.Sprintf("mode %#o has bits outside %#o", e.Mode, ModeMask))
	}
	if e.Size < 0 || e.Size > MaxSize {
		return entryError(fmt.Sprintf("size %d out of range", e.Size))
	}
	if e.Files < 0 || e.Files > MaxSize {
		return entryError(fmt.Sprintf("file count %d out of range", e.Files))
	}
	if !e.Owned && (e.UID != 0 || e.GID != 0) {
		return entryError("owner ids without the owned flag")
	}
	if e.LinkTo != "" {
		if e.Kind != KindFile {
			return entryError("link group on a " + e.Kind.String())
		}
		if msg := linkProblem(e.LinkTo); msg != "" {
			return entryError(msg)
		}
	}
	switch e.Kind {
	case KindFile:
		if e.Target != "" {
			return entryError("file with a symlink target")
		}
		if e.Files != 0 {
			return entryError("file with a file count")
		}
		return checkContent(e)
	case KindDir:
		if e.Size != 0 {
			return entryError(fmt.Sprintf("dir with size %d", e.Size))
		}
		if e.Target != "" {
			return entryError("dir with a symlink target")
		}
		if !e.Uncaptured && e.Files != 0 {
			return entryError("captured dir with a file count")
		}
		return checkContent(e)
	case KindSymlink:
		if e.Uncaptured {
			return entryError("uncaptured symlink")
		}
		if !e.Hash.IsZero() {
			return entryError("symlink with a hash")
		}
		if e.Files != 0 {
			return entryError("symlink with a file count")
		}
		if msg := targetProblem(e.Target); msg != "" {
			return entryError(msg)
		}
		if e.Size != int64(len(e.Target)) {
			return entryError(fmt.Sprintf("symlink size %d, target is %d bytes", e.Size, len(e.Target)))
		}
		return nil
	case KindFIFO:
		switch {
		case e.Uncaptured:
			return entryError("uncaptured fifo")
		case e.Size != 0:
			return entryError(fmt.Sprintf("fifo with size %d", e.Size))
		case !e.Hash.IsZero():
			return entryError("fifo with a hash")
		case e.Target != "":
			return entryError("fifo with a symlink target")
		case e.Files != 0:
			return entryError("fifo with a file count")
		}
		return nil
	}
	return entryError(fmt.Sprintf("unknown kind %d", uint8(e.Kind)))
}

// checkContent checks the hash rule shared by files and dirs: a captured
// entry has a hash; an uncaptured dir has none; an uncaptured file may
// carry the hash of content that was read but not stored.
func checkContent(e *Entry) error {
	if e.Uncaptured && !e.Hash.IsZero() && e.Kind != KindFile {
		return entryError("uncaptured " + e.Kind.String() + " with a hash")
	}
	if !e.Uncaptured && e.Hash.IsZero() {
		return entryError("captured " + e.Kind.String() + " without a hash")
	}
	return nil
}
