package turnback

// Adopting a moved folder's history: the store of a folder lives under a
// name made from the folder's path, so a folder moved or renamed finds
// no history at its new path. Adopt renames the old folder's store to
// the new folder's name and records the new path in it.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/handoff"
	"github.com/turnback/turnback/internal/storedir"
)

// ErrAdopt is wrapped by the refusals of Adopt: the old folder still
// exists, no store records it, or this folder has history of its own.
// Nothing was changed.
var ErrAdopt = errors.New("turnback: adopt refused")

// AdoptResult says what Adopt did.
type AdoptResult struct {
	From     string `json:"from"`      // the folder the history was recorded in, which no longer exists
	WorkTree string `json:"work_tree"` // the folder that has the history now
	Store    string `json:"store"`     // where the history is now: the folder's default store
	Was      string `json:"was"`       // where the store was
	// Replaced: this folder had a store without history (a command run
	// here made it); it was removed.
	Replaced bool `json:"replaced"`
	Sessions int  `json:"sessions"` // sessions with turns
	Turns    int  `json:"turns"`    // turns undo can revert, over every session
}

// Adopt gives the folder workTree the history of the folder from, which
// was moved or renamed to it: from's store (a default store, under
// DefaultStoreRoot) becomes workTree's default store. It refuses, with
// ErrAdopt, while from still exists, when no store records from, and
// when workTree's own store holds any turn or snapshot. A store of
// workTree without history is removed. A process still holding from's
// store is waited for as Open waits (ErrBusy). Only opts.LockWait and
// opts.Holder are used; a store named by $TURNBACK_STORE is refused.
func Adopt(ctx context.Context, workTree, from string, opts Options) (*AdoptResult, error) {
	if os.Getenv("TURNBACK_STORE") != "" {
		return nil, fmt.Errorf("%w: TURNBACK_STORE names the store; adopt moves default stores only", ErrAdopt)
	}
	wt, err := storedir.Canonical(workTree)
	if err != nil {
		return nil, err
	}
	fromAbs, err := filepath.Abs(from)
	if err != nil {
		return nil, fmt.Errorf("turnback: adopt %s: %w", from, err)
	}
	if _, err := os.Lstat(fromAbs); err == nil {
		return nil, fmt.Errorf("%w: %s still exists: adopt takes the history of a folder that was moved or renamed", ErrAdopt, fromAbs)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("turnback: adopt %s: %w", fromAbs, err)
	}
	old, recorded, err := findStoreOf(fromAbs)
	if err != nil {
		return nil, err
	}
	dst, err := storedir.DefaultStoreDir(wt)
	if err != nil {
		return nil, err
	}
	res := &AdoptResult{From: recorded, WorkTree: wt, Store: dst, Was: old}
	if old != dst {
		// A process still running on the old store (a watch daemon) is
		// waited for; no new one can open it: its folder is gone.
		if err := waitUnheld(ctx, old, opts); err != nil {
			return nil, err
		}
		aside, err := setAsideEmpty(ctx, wt, dst, opts)
		if err != nil {
			return nil, err
		}
		if err := os.Rename(old, dst); err != nil {
			if aside != "" {
				_ = os.Rename(aside, dst)
			}
			return nil, fmt.Errorf("turnback: adopt: move %s to %s: %w", old, dst, err)
		}
		if aside != "" {
			res.Replaced = true
			// It held no history (setAsideEmpty): nothing is lost.
			_ = os.RemoveAll(aside)
		}
	}
	// The store is at its new name from here on; if this process stops
	// before the notes below are written, Adopt run again finds it there
	// (it still records from) and writes them.
	if err := writeNotes(ctx, dst, wt); err != nil {
		// Put back where it was, as it was: commands refuse a store
		// whose notes name two folders.
		if old != dst && os.Rename(dst, old) == nil {
			_ = storedir.MoveMarker(ctx, old, recorded)
			_ = storedir.RecordWorkTree(old, recorded)
		}
		return nil, err
	}
	handoff.Remove(dst) // a first capture's hand-over names the old folder
	sessions, err := storeSessions(ctx, wt, dst, opts)
	if err != nil {
		return nil, err
	}
	for _, s := range sessions {
		if s.Turns > 0 {
			res.Sessions++
			res.Turns += s.Turns
		}
	}
	return res, nil
}

// writeNotes records wt in the store dst: its worktree note and marker.
func writeNotes(ctx context.Context, dst, wt string) error {
	// The marker first, its format version kept: an adopt stopped
	// between the two is found by the note, which still names from.
	if err := storedir.MoveMarker(ctx, dst, wt); err != nil {
		return err
	}
	if err := storedir.RecordWorkTree(dst, wt); err != nil {
		return fmt.Errorf("turnback: adopt: record %s in %s: %w", wt, dst, err)
	}
	// Root adopting a user's store: the user must still read them.
	storedir.GiveToOwner(dst, storedir.WorkTreeNote, storedir.MarkerName)
	return nil
}

// findStoreOf returns the default store that records the work tree
// from, in its worktree note or its marker, and the path as recorded. A
// path whose parent is reached through a symlink is looked for in its
// symlink-free form too.
func findStoreOf(from string) (store, recorded string, err error) {
	root, err := storedir.DefaultRoot()
	if err != nil {
		return "", "", err
	}
	want := []string{from}
	if parent, err := filepath.EvalSymlinks(filepath.Dir(from)); err == nil {
		if p := filepath.Join(parent, filepath.Base(from)); p != from {
			want = append(want, p)
		}
	}
	ents, err := os.ReadDir(root)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", "", fmt.Errorf("turnback: adopt: list stores in %s: %w", root, err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		wt, ok := storedir.RecordedWorkTree(dir)
		if !ok {
			continue
		}
		// An adopt stopped between its two notes left the old path in
		// the marker only.
		marked, _ := storedir.MarkedWorkTree(dir)
		for _, w := range want {
			if wt == w || marked == w {
				return dir, w, nil
			}
		}
	}
	return "", "", fmt.Errorf("%w: no store under %s records the folder %s", ErrAdopt, root, from)
}

// waitUnheld waits, as Open does, until no process holds the store's
// database, and lets it go at once.
func waitUnheld(ctx context.Context, store string, opts Options) error {
	wait := opts.LockWait
	if wait == 0 {
		wait = DefaultLockWait
	} else if wait < 0 {
		wait = 0
	}
	b, err := cas.OpenBadger(ctx, filepath.Join(store, "db"), cas.BadgerOptions{ReadOnly: true, LockWait: wait,
		Holder: opts.Holder, Name: store})
	if err != nil {
		return fmt.Errorf("turnback: adopt %s: %w", store, err)
	}
	return b.Close()
}

// setAsideEmpty moves the store dst of wt, if there is one, to a name of
// its own and checks there, holding it for writing, that it has no
// history; it returns that name ("" when dst did not exist). A store
// with history is refused with ErrAdopt and left at dst.
func setAsideEmpty(ctx context.Context, wt, dst string, opts Options) (string, error) {
	if _, err := os.Lstat(dst); errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	// Checked in place first: an adopt stopped while it waits for a
	// process must not leave a store with history under another name.
	if err := checkNoHistory(ctx, wt, dst, dst, AccessRead, opts); err != nil {
		return "", err
	}
	aside := fmt.Sprintf("%s.adopt-%d", dst, time.Now().UnixNano())
	if err := os.Rename(dst, aside); err != nil {
		return "", fmt.Errorf("turnback: adopt: set %s aside: %w", dst, err)
	}
	// Open for writing: a process that had it open before the rename
	// finishes first, and one that comes after opens dst, not aside.
	if err := checkNoHistory(ctx, wt, aside, dst, AccessWrite, opts); err != nil {
		if rerr := os.Rename(aside, dst); rerr != nil {
			return "", fmt.Errorf("%w (and it could not be put back: it is in %s: %v)", err, aside, rerr)
		}
		return "", err
	}
	return aside, nil
}

// checkNoHistory refuses, with ErrAdopt, the store of wt in store if it
// holds a turn or a snapshot; the refusal names it dst, its usual place.
func checkNoHistory(ctx context.Context, wt, store, dst string, access Access, opts Options) error {
	r, err := Open(ctx, wt, Options{Store: store, Local: true, Access: access, LockWait: opts.LockWait, Holder: opts.Holder})
	if err != nil {
		return err
	}
	defer r.Close()
	ss, err := r.Sessions(ctx)
	if err != nil {
		return err
	}
	for _, s := range ss {
		if s.Turns > 0 || s.Redo > 0 {
			return fmt.Errorf("%w: this folder has history of its own in %s (session %s: %d turns)", ErrAdopt, dst, s.Name, s.Turns+s.Redo)
		}
	}
	in, err := r.Info(ctx)
	if err != nil {
		return err
	}
	if in.Snapshots > 0 {
		return fmt.Errorf("%w: this folder has history of its own in %s (%d snapshots)", ErrAdopt, dst, in.Snapshots)
	}
	return nil
}

// storeSessions lists the sessions of the store dst of wt.
func storeSessions(ctx context.Context, wt, dst string, opts Options) ([]SessionInfo, error) {
	r, err := Open(ctx, wt, Options{Store: dst, Local: true, Access: AccessRead, LockWait: opts.LockWait, Holder: opts.Holder})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Sessions(ctx)
}

// MovedFrom lists folders that may be workTree before it was moved or
// renamed: folders that are gone, whose history a default store holds,
// and that had workTree's name or its parent folder. Adopt takes one
// over. The list is sorted; it is empty when $TURNBACK_STORE is set.
func MovedFrom(workTree string) ([]string, error) {
	if os.Getenv("TURNBACK_STORE") != "" {
		return nil, nil
	}
	gone, err := storedir.GoneWorkTrees()
	if err != nil {
		return nil, err
	}
	var out []string
	for wt := range gone {
		if filepath.Base(wt) == filepath.Base(workTree) || filepath.Dir(wt) == filepath.Dir(workTree) {
			out = append(out, wt)
		}
	}
	slices.Sort(out)
	return out, nil
}
