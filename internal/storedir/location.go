package storedir

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// Canonical returns the absolute, symlink-free form of dir.
func Canonical(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("turnback: %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("turnback: work tree %s: %w", abs, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("turnback: work tree %s: %w", abs, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("turnback: work tree %s is not a directory", abs)
	}
	return real, nil
}

var unsafeKey = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// DefaultStoreDir returns where the store of workTree lives unless told
// otherwise: $TURNBACK_STORE if set, else
// ${XDG_DATA_HOME:-~/.local/share}/turnback/<name>-<hash of the path>.
func DefaultStoreDir(workTree string) (string, error) {
	if s := os.Getenv("TURNBACK_STORE"); s != "" {
		return filepath.Abs(s)
	}
	base, err := dataHome()
	if err != nil {
		return "", fmt.Errorf("turnback: no store location: set TURNBACK_STORE or HOME: %w", err)
	}
	name := unsafeKey.ReplaceAllString(filepath.Base(workTree), "_")
	if len(name) > 40 {
		name = name[:40]
	}
	sum := cas.Sum([]byte(workTree))
	return filepath.Join(base, "turnback", name+"-"+sum.String()[:16]), nil
}

// Locate finds the work tree for a command run in dir, as git finds
// .git: the nearest ancestor of dir (dir included) whose default store
// exists, else dir itself. With an explicit store (storeDir or
// $TURNBACK_STORE), the work tree that store records is used when dir
// lies inside it.
func Locate(dir, storeDir string) (workTree, store string, err error) {
	dir, err = Canonical(dir)
	if err != nil {
		return "", "", err
	}
	if storeDir == "" {
		storeDir = os.Getenv("TURNBACK_STORE")
	}
	if storeDir != "" {
		storeDir, err = filepath.Abs(storeDir)
		if err != nil {
			return "", "", err
		}
		if wt, ok := RecordedWorkTree(storeDir); ok && Within(wt, dir) {
			return wt, storeDir, nil
		}
		return dir, storeDir, nil
	}
	for d := dir; ; {
		s, err := DefaultStoreDir(d)
		if err != nil {
			return "", "", err
		}
		if wt, ok := RecordedWorkTree(s); ok && wt == d {
			return d, s, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	s, err := DefaultStoreDir(dir)
	return dir, s, err
}

// Within reports whether p is dir or inside it.
func Within(dir, p string) bool {
	if p == dir {
		return true
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// CheckScope refuses the filesystem root and the home directory.
func CheckScope(workTree string) error {
	if filepath.Dir(workTree) == workTree {
		return model.ErrScope
	}
	if home, err := os.UserHomeDir(); err == nil {
		if h, err := filepath.EvalSymlinks(home); err == nil && h == workTree {
			return model.ErrScope
		}
	}
	return nil
}

// CheckLocation runs the checks Open makes before it creates anything:
// the work tree exists (and, without force, is not / or the home
// directory), the store is not inside it, and the store does not belong
// to another work tree. It creates nothing.
func CheckLocation(workTree, store string, force bool) error {
	wt, err := Canonical(workTree)
	if err != nil {
		return err
	}
	if !force {
		if err := CheckScope(wt); err != nil {
			return err
		}
	}
	if store, err = DirOf(wt, store); err != nil {
		return err
	}
	real, err := ResolveExisting(store)
	if err != nil {
		return fmt.Errorf("turnback: store %s: %w", store, err)
	}
	if Within(wt, real) {
		return &InWorkTreeError{Store: store, WorkTree: wt}
	}
	if rec, ok := RecordedWorkTree(store); ok && rec != wt {
		return fmt.Errorf("turnback: store %s belongs to work tree %s, not %s", store, rec, wt)
	}
	if _, m, err := Inspect(context.Background(), store); err != nil {
		return err
	} else if m != nil && m.WorkTree != "" && m.WorkTree != wt {
		return fmt.Errorf("turnback: store %s belongs to work tree %s, not %s", store, m.WorkTree, wt)
	}
	return nil
}

// dataHome is ${XDG_DATA_HOME:-~/.local/share}, where the default stores
// live (in its turnback directory).
func dataHome() (string, error) {
	if base := os.Getenv("XDG_DATA_HOME"); base != "" {
		return base, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share"), nil
}

// DirOf returns the absolute store directory of work tree wt: store,
// or DefaultStoreDir(wt) when store is empty.
func DirOf(wt, store string) (string, error) {
	dir := store
	if dir == "" {
		var err error
		if dir, err = DefaultStoreDir(wt); err != nil {
			return "", err
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("turnback: store %s: %w", dir, err)
	}
	return abs, nil
}

// ResolveExisting resolves symlinks in the longest existing prefix of p
// and appends the rest unchanged.
func ResolveExisting(p string) (string, error) {
	var rest []string
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				real = filepath.Join(real, rest[i])
			}
			return real, nil
		}
		if !os.IsNotExist(err) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = append(rest, filepath.Base(p))
		p = parent
	}
}

// InWorkTreeError is the error Open and CheckLocation return for a
// store inside the work tree.
type InWorkTreeError struct{ Store, WorkTree string }

func (e *InWorkTreeError) Error() string {
	return fmt.Sprintf("turnback: store %s is inside the work tree %s", e.Store, e.WorkTree)
}

func (e *InWorkTreeError) Is(target error) bool { return target == model.ErrStoreInWorkTree }
