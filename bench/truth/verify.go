//go:build linux

package truth

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// VerifyResult lists how a tree differs from its State.
type VerifyResult struct {
	Mismatches []string // "kind: path (detail)", at most maxListed
	Count      int
	Rehashed   int64 // files read because their stat data changed
	Changed    bool  // stat data updated for files with identical content
}

const maxListed = 40

// Verify compares the tree at root with s byte for byte (see the package
// documentation). With full false, files whose inode, ctime and mtime
// equal the recorded ones are trusted; the others are hashed. Files found
// identical get their new stat data recorded in s.
func Verify(root string, s *State, full bool) (*VerifyResult, error) {
	res := &VerifyResult{}
	var mu sync.Mutex
	c, err := compare(root, s, full, func(_, problem string) {
		mu.Lock()
		res.Count++
		if len(res.Mismatches) < maxListed {
			res.Mismatches = append(res.Mismatches, problem)
		}
		mu.Unlock()
	})
	if err != nil {
		return nil, err
	}
	res.Rehashed, res.Changed = c.rehashed.Load(), c.changed.Load()
	return res, nil
}

// comparison is what compare counted.
type comparison struct {
	rehashed atomic.Int64
	changed  atomic.Bool
}

// compare walks root and calls report (from several goroutines) for
// every path that differs from s, with a description of the difference;
// paths of s missing from the tree are reported last.
func compare(root string, s *State, full bool, report func(rel, problem string)) (*comparison, error) {
	c := &comparison{}
	seen := make([]uint8, len(s.Ents))
	err := Walk(root, 0, func(rel string, fi fs.FileInfo) error {
		var cur Entry
		StatEntry(&cur, fi)
		if cur.Kind == 0 {
			report(rel, "unexpected special file: "+rel)
			return nil
		}
		i := s.Lookup(rel)
		if i < 0 {
			report(rel, "extra: "+rel) // a directory's contents are reported as extra too
			return nil
		}
		seen[i] = 1
		c.entry(s, filepath.Join(root, filepath.FromSlash(rel)), rel, &cur, &s.Ents[i], full, report)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range s.Ents {
		if seen[i] == 0 {
			rel := s.Name(&s.Ents[i])
			report(rel, "missing: "+rel)
		}
	}
	return c, nil
}

// entry compares one path found in both the tree (cur) and s (want).
func (c *comparison) entry(s *State, abs, rel string, cur, want *Entry, full bool, report func(rel, problem string)) {
	if cur.Kind != want.Kind {
		report(rel, fmt.Sprintf("kind: %s (want %d, have %d)", rel, want.Kind, cur.Kind))
		return
	}
	if cur.Perm != want.Perm && cur.Kind != KindSymlink {
		report(rel, fmt.Sprintf("mode: %s (want %o, have %o)", rel, want.Perm, cur.Perm))
	}
	switch cur.Kind {
	case KindFile:
		if cur.Size != want.Size {
			report(rel, fmt.Sprintf("size: %s (want %d, have %d)", rel, want.Size, cur.Size))
			return
		}
		if !full && cur.Ino == want.Ino && cur.Ctime == want.Ctime && cur.Mtime == want.Mtime {
			return
		}
		c.rehashed.Add(1)
		sum, _, err := HashFile(abs)
		if err != nil {
			report(rel, fmt.Sprintf("unreadable: %s (%v)", rel, err))
			return
		}
		if sum != want.Sum {
			report(rel, "content: "+rel)
			return
		}
		want.Ino, want.Ctime, want.Mtime = cur.Ino, cur.Ctime, cur.Mtime
		c.changed.Store(true)
	case KindSymlink:
		t, err := os.Readlink(abs)
		if err != nil || (t != s.Link(want) && !(t == "" && s.Link(want) == "\x00")) {
			report(rel, fmt.Sprintf("link: %s (want %q, have %q)", rel, s.Link(want), t))
		}
	}
}
