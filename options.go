package turnback

// The options of Undo, Redo and Restore, the paths of a partial undo, and
// what a dry run returns.

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// UndoOptions say how Undo reverts the turns. The zero value is a whole
// undo that stops at any conflict.
type UndoOptions struct {
	// Force overwrites edits made outside the turns (what is overwritten
	// stays in the checkpoint).
	Force bool `json:"force,omitempty"`
	// Paths, if not empty, makes the undo partial: only the paths the
	// turns changed at or below one of these are reverted, and the
	// turns stay on the undo stack with the rest of their changes. Each
	// is slash-separated and relative to the work tree ("." is all of
	// it); one that is empty, outside it, or that names nothing the
	// turns changed, is an error wrapping ErrPath and nothing is done.
	Paths []string `json:"paths,omitempty"`
	// Dir, if set, is the directory relative Paths start from (as a
	// command line gives them; see TreePaths); "" is the work tree.
	Dir string `json:"-"`
	// DryRun changes nothing (see RestoreResult.DryRun).
	DryRun bool `json:"dry_run,omitempty"`
	// Merge keeps the user's edits in text files the turns changed and
	// the user edited since, by a three-way merge (package
	// restore/merge), instead of calling them conflicts.
	Merge MergeMode `json:"merge,omitempty"`
}

// MergeMode says whether and how Undo merges (UndoOptions.Merge). It is
// a command-line flag value (Set, String, Type).
type MergeMode string

// Set sets m from s: "clean" or "markers" ("" is MergeNone).
func (m *MergeMode) Set(s string) error {
	switch v := MergeMode(s); v {
	case MergeNone, MergeClean, MergeMarkers:
		*m = v
		return nil
	}
	return fmt.Errorf("turnback: merge mode must be %q or %q, not %q", MergeClean, MergeMarkers, s)
}

func (m *MergeMode) String() string { return string(*m) }

// Type names the flag value's type.
func (m *MergeMode) Type() string { return "mode" }

// The merge modes.
const (
	// MergeNone: an edited path is a conflict.
	MergeNone MergeMode = ""
	// MergeClean: an edited text file gets the turns' hunks reverted
	// and keeps the user's; where they overlap it is a conflict.
	MergeClean MergeMode = "clean"
	// MergeMarkers is MergeClean where overlaps are written between
	// conflict markers instead (RestoreResult.Markers).
	MergeMarkers MergeMode = "markers"
)

// RedoOptions say how Redo re-applies turns.
type RedoOptions struct {
	// Force overwrites edits made since the undo (kept in the
	// checkpoint).
	Force bool `json:"force,omitempty"`
	// DryRun changes nothing (see RestoreResult.DryRun).
	DryRun bool `json:"dry_run,omitempty"`
}

// RestoreOptions say how Restore works.
type RestoreOptions struct {
	// DryRun changes nothing (see RestoreResult.DryRun).
	DryRun bool `json:"dry_run,omitempty"`
}

// errEmptyPath: an empty path given to a partial undo (an unset shell
// variable, most likely) names nothing; it never means "everything".
var errEmptyPath = fmt.Errorf(`%w: an empty path ("") names no file or directory; nothing was done`, ErrPath)

// cleanPaths checks and normalises the paths of a partial undo: clean,
// relative, slash-separated; "." becomes "" (the whole tree). An empty
// path is an error.
func cleanPaths(ps []string) ([]string, error) {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if p == "" {
			return nil, errEmptyPath
		}
		q := path.Clean(p)
		if strings.ContainsRune(p, 0) || path.IsAbs(q) || q == ".." || strings.HasPrefix(q, "../") {
			return nil, fmt.Errorf("%w: %q is not inside the work tree", ErrPath, p)
		}
		if q == "." {
			q = ""
		}
		out = append(out, q)
	}
	return out, nil
}

// underSpec reports whether path p is spec or below it ("" is the whole
// tree).
func underSpec(p, spec string) bool {
	return spec == "" || p == spec || strings.HasPrefix(p, spec+"/")
}

// sortedUnique returns the strings of ss sorted, each once.
func sortedUnique(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	k := 0
	for i, s := range out {
		if i == 0 || s != out[k-1] {
			out[k] = s
			k++
		}
	}
	return out[:k]
}

// TreePaths turns paths given relative to dir (absolute ones as they
// are), as a command line gives them, into the paths UndoOptions.Paths
// takes: slash-separated and relative to the work tree ("." for the work
// tree itself). dir and the paths may go through symbolic links. One
// that is empty or outside the work tree is an error wrapping ErrPath.
func (r *Repo) TreePaths(dir string, paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if p == "" {
			return nil, errEmptyPath
		}
		abs := p
		if !filepath.IsAbs(p) {
			abs = filepath.Join(dir, p)
		}
		rel, ok := relInside(r.workTree, abs)
		if !ok {
			wt, err1 := filepath.EvalSymlinks(r.workTree)
			real, err2 := resolveExisting(abs)
			if err1 == nil && err2 == nil {
				rel, ok = relInside(wt, real)
			}
		}
		if !ok {
			return nil, fmt.Errorf("%w: %q is not inside the work tree %s", ErrPath, p, r.workTree)
		}
		if rel == "" {
			rel = "."
		}
		out = append(out, rel)
	}
	return out, nil
}

// relInside returns p relative to dir, slash-separated ("" for dir
// itself), if p is dir or below it.
func relInside(dir, p string) (string, bool) {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	if rel == "." {
		rel = ""
	}
	return filepath.ToSlash(rel), true
}
