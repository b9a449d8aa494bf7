package storedir

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/turnback/turnback/cas"
)

// OrphanStore is a store under the default location whose work tree no
// longer exists.
type OrphanStore struct {
	Store    string `json:"store"`
	WorkTree string `json:"work_tree"`
	Bytes    int64  `json:"bytes"`
}

// DefaultRoot returns the directory holding the default stores.
func DefaultRoot() (string, error) {
	base, err := dataHome()
	if err != nil {
		return "", fmt.Errorf("turnback: no home directory: %w", err)
	}
	return filepath.Join(base, "turnback"), nil
}

// OrphanStores lists the stores under the default location whose work
// tree is gone. With remove, it deletes them (each is first checked not
// to be in use: a store held by another process is skipped).
func OrphanStores(ctx context.Context, remove bool) ([]OrphanStore, error) {
	gone, err := goneStores()
	if err != nil {
		return nil, err
	}
	var out []OrphanStore
	for _, g := range gone {
		dir := g.Store
		size, _ := cas.DiskUsage(dir)
		o := OrphanStore{Store: dir, WorkTree: g.WorkTree, Bytes: size}
		if remove {
			// Take the lock so a running turnback is never pulled from
			// under; read-only: it works on the full disk this frees.
			b, err := cas.OpenBadger(ctx, filepath.Join(dir, "db"), cas.BadgerOptions{Holder: "turnback gc --stores", ReadOnly: true})
			if err != nil {
				continue
			}
			b.Close()
			if err := os.RemoveAll(dir); err != nil {
				return out, fmt.Errorf("turnback: remove %s: %w", dir, err)
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// GoneWorkTrees lists the work trees that stores under the default
// location record and that no longer exist, each with its store. It
// reads one small note per store and opens no database.
func GoneWorkTrees() (map[string]string, error) {
	gone, err := goneStores()
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(gone))
	for _, g := range gone {
		m[g.WorkTree] = g.Store
	}
	return m, nil
}

// goneStores lists, in the order of their names, the stores under the
// default location whose recorded work tree no longer exists.
func goneStores() ([]OrphanStore, error) {
	root, err := DefaultRoot()
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("turnback: list stores: %w", err)
	}
	var out []OrphanStore
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		wt, ok := RecordedWorkTree(dir)
		if !ok {
			continue // not a store we made
		}
		if _, err := os.Stat(wt); err == nil || !os.IsNotExist(err) {
			continue
		}
		out = append(out, OrphanStore{Store: dir, WorkTree: wt})
	}
	return out, nil
}
