package turnback

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker"
)

// Info describes a store.
type Info struct {
	WorkTree  string `json:"work_tree"`
	Store     string `json:"store"`
	DiskBytes int64  `json:"disk_bytes"`
	Sessions  int    `json:"sessions"`
	Turns     int    `json:"turns"`
	Redoable  int    `json:"redoable_turns"`
	Snapshots int    `json:"snapshots"`
	// UniqueBytes is the size of the distinct file contents the snapshots
	// hold; LogicalBytes what they would take as plain copies, one per
	// snapshot.
	UniqueBytes   int64 `json:"unique_bytes"`
	LogicalBytes  int64 `json:"logical_bytes"`
	SizeLimit     int64 `json:"size_limit"`
	LargeDirFiles int   `json:"large_dir_files"`
	KeepTurns     int   `json:"keep_turns"`
	KeepAgeDays   int   `json:"keep_age_days"`

	// Distinct file contents of the snapshots by how they are protected:
	// copied into the store (UniqueBytes), held by a reference (a Git
	// LFS object, a git blob or a copy-on-write clone), or neither (over
	// the size limit with no reference: not restorable).
	BytesByCopy      int64 `json:"bytes_by_copy"`
	BytesByReference int64 `json:"bytes_by_reference"`
	BytesUnprotected int64 `json:"bytes_unprotected"`
}

// Info reports the store's location, size and contents.
func (r *Repo) Info(ctx context.Context) (*Info, error) {
	if err := r.lock(); err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	o := GCOptions{Keep: r.opts.KeepTurns, OlderThan: r.opts.KeepAge}.withDefaults()
	in := &Info{WorkTree: r.workTree, Store: r.storeDir, SizeLimit: r.opts.SizeLimit, LargeDirFiles: r.opts.LargeDirFiles,
		KeepTurns: o.Keep, KeepAgeDays: int(o.OlderThan.Hours() / 24)}
	if in.SizeLimit == 0 {
		in.SizeLimit = walker.DefaultSizeLimit
	}
	if in.LargeDirFiles == 0 {
		in.LargeDirFiles = walker.DefaultLargeDirFiles
	}
	var err error
	if in.DiskBytes, err = cas.DiskUsage(r.storeDir); err != nil {
		return nil, err
	}
	sessions, err := r.sessions(ctx)
	if err != nil {
		return nil, err
	}
	in.Sessions = len(sessions)
	for _, s := range sessions {
		in.Turns += len(s.Turns)
		for _, g := range s.Redo {
			in.Redoable += len(g.Turns)
		}
	}
	// Each tree is read once: its logical size is memoised, so shared
	// subtrees cost nothing however many snapshots hold them.
	seen := map[cas.Hash]bool{}
	sizes := map[cas.Hash]int64{}
	loader := manifest.NewStoreLoader(r.store)
	var size func(h cas.Hash) (int64, error)
	size = func(h cas.Hash) (int64, error) {
		if n, ok := sizes[h]; ok {
			return n, nil
		}
		var n int64
		if h != manifest.EmptyTreeHash() {
			t, err := loader.LoadTree(ctx, h)
			if err != nil {
				return 0, err
			}
			for i := range t.Entries {
				e := &t.Entries[i]
				switch {
				case e.Uncaptured:
					if err := r.countProtection(ctx, e, seen, in); err != nil {
						return 0, err
					}
				case e.Kind == manifest.KindDir:
					k, err := size(e.Hash)
					if err != nil {
						return 0, err
					}
					n += k
				case e.Kind == manifest.KindFile:
					n += e.Size
					if !seen[e.Hash] {
						seen[e.Hash] = true
						in.UniqueBytes += e.Size
					}
				}
			}
		}
		sizes[h] = n
		return n, nil
	}
	err = r.backend.Scan(ctx, []byte(prefixSnap), true, func(k, _ []byte) error {
		h, err := cas.ParseHash(strings.TrimPrefix(string(k), prefixSnap))
		if err != nil {
			return nil
		}
		in.Snapshots++
		n, err := size(h)
		in.LogicalBytes += n
		return err
	})
	if err != nil {
		return nil, err
	}
	in.BytesByCopy = in.UniqueBytes
	return in, nil
}

// OrphanStore is a store under the default location whose work tree no
// longer exists.
type OrphanStore struct {
	Store    string `json:"store"`
	WorkTree string `json:"work_tree"`
	Bytes    int64  `json:"bytes"`
}

// DefaultStoreRoot returns the directory holding the default stores.
func DefaultStoreRoot() (string, error) {
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("turnback: no home directory: %w", err)
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "turnback"), nil
}

// OrphanStores lists the stores under the default location whose work
// tree is gone. With remove, it deletes them (each is first checked not
// to be in use: a store held by another process is skipped).
func OrphanStores(ctx context.Context, remove bool) ([]OrphanStore, error) {
	root, err := DefaultStoreRoot()
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
		wt, ok := recordedWorkTree(dir)
		if !ok {
			continue // not a store we made
		}
		if _, err := os.Stat(wt); err == nil || !os.IsNotExist(err) {
			continue
		}
		size, _ := cas.DiskUsage(dir)
		o := OrphanStore{Store: dir, WorkTree: wt, Bytes: size}
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
