//go:build linux

package truth

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Source gives the reference content of a path, to repair a tree.
type Source interface {
	// Content returns the reference bytes of the file at rel.
	Content(rel string) (io.ReadCloser, error)
}

// Repair makes root match s again, path by path, using src for content.
// It is the harness's safety net (a failed engine must not poison the
// cached tree or the next repetition), never part of a measurement.
func Repair(root string, s *State, src Source) error {
	v, err := Verify(root, s, false)
	if err != nil {
		return err
	}
	if v.Count == 0 {
		return nil
	}
	if src == nil {
		return fmt.Errorf("truth: tree %s differs from its reference in %d paths and there is no source to repair it from (e.g. %s)", root, v.Count, strings.Join(v.Mismatches[:min(3, len(v.Mismatches))], "; "))
	}
	// Every differing path, not just the listed ones.
	var bad []string
	var mu sync.Mutex
	if _, err := compare(root, s, false, func(rel, _ string) {
		mu.Lock()
		bad = append(bad, rel)
		mu.Unlock()
	}); err != nil {
		return err
	}
	slices.Sort(bad) // parents before children
	for _, rel := range slices.Compact(bad) {
		if err := repairPath(root, rel, s, src); err != nil {
			return err
		}
	}
	v, err = Verify(root, s, false)
	if err != nil {
		return err
	}
	if v.Count > 0 {
		return fmt.Errorf("truth: tree %s still differs from its reference after repair: %s", root, strings.Join(v.Mismatches[:min(5, len(v.Mismatches))], "; "))
	}
	return nil
}

// repairPath puts one path of root back as s has it.
func repairPath(root, rel string, s *State, src Source) error {
	abs := filepath.Join(root, filepath.FromSlash(rel))
	i := s.Lookup(rel)
	if i < 0 {
		return os.RemoveAll(abs)
	}
	want := &s.Ents[i]
	if fi, err := os.Lstat(abs); err == nil {
		var cur Entry
		StatEntry(&cur, fi)
		if cur.Kind == KindDir && want.Kind == KindDir {
			return os.Chmod(abs, os.FileMode(want.Perm))
		}
		if err := os.RemoveAll(abs); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	switch want.Kind {
	case KindDir:
		if err := os.Mkdir(abs, os.FileMode(want.Perm)); err != nil && !errors.Is(err, os.ErrExist) {
			return err
		}
	case KindSymlink:
		return os.Symlink(s.Link(want), abs)
	case KindFile:
		return writeFrom(src, rel, abs, os.FileMode(want.Perm))
	}
	return nil
}

// writeFrom writes the reference content of rel from src to abs.
func writeFrom(src Source, rel, abs string, perm os.FileMode) error {
	rc, err := src.Content(rel)
	if err != nil {
		return fmt.Errorf("truth: repair %s: %w", rel, err)
	}
	defer rc.Close()
	f, err := os.OpenFile(abs, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, rc)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Chmod(abs, perm)
}
