package manifest

import (
	"context"
	"fmt"

	"github.com/turnback/turnback/cas"
)

// ChangeKind says how a path differs between two trees.
type ChangeKind uint8

// The kinds of change Diff reports.
const (
	Added       ChangeKind = iota + 1 // only in the new tree
	Deleted                           // only in the old tree
	Modified                          // content, size, target or capture state differ
	ModeChanged                       // only the permission bits or the owner differ
	TypeChanged                       // file, dir, symlink or fifo became another kind
)

// String returns "added", "deleted", "modified", "mode" or "type".
func (c ChangeKind) String() string {
	if int(c) < len(changeNames) && changeNames[c] != "" {
		return changeNames[c]
	}
	return fmt.Sprintf("change(%d)", uint8(c))
}

var changeNames = [...]string{Added: "added", Deleted: "deleted", Modified: "modified", ModeChanged: "mode", TypeChanged: "type"}

// Change is one difference between two trees.
type Change struct {
	Path string     // slash-separated, relative to the roots, e.g. "a/b.txt"
	Kind ChangeKind // what happened
	Old  *Entry     // the entry in the old tree; nil when Added
	New  *Entry     // the entry in the new tree; nil when Deleted
}

// String renders c as "kind path", for logs and tests.
func (c Change) String() string { return c.Kind.String() + " " + c.Path }

// Diff calls fn for every difference between the trees a (old) and b (new),
// in depth-first pre-order, sorted by name at each level. A zero hash means
// the empty tree. Subtrees with equal hashes are skipped without loading
// them. See the package documentation for the rules.
//
// fn receives copies of the entries. An error from fn stops the diff and is
// returned as is; loader errors are wrapped with the directory's path.
func Diff(ctx context.Context, l Loader, a, b cas.Hash, fn func(Change) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if a == b {
		return nil
	}
	d := differ{ctx: ctx, l: l, fn: fn}
	return d.dir("", a, b, 0)
}

type differ struct {
	ctx context.Context
	l   Loader
	fn  func(Change) error
}

// dir diffs the trees a and b found at path dir.
func (d *differ) dir(dir string, a, b cas.Hash, depth int) error {
	if l := scanning(d.l); l != nil {
		return d.dirEncoded(l, dir, a, b, depth)
	}
	ta, err := loadTree(d.ctx, d.l, dir, a, depth)
	if err != nil {
		return err
	}
	tb, err := loadTree(d.ctx, d.l, dir, b, depth)
	if err != nil {
		return err
	}
	ea, eb := ta.Entries, tb.Entries
	for len(ea) > 0 || len(eb) > 0 {
		if err := d.ctx.Err(); err != nil {
			return err
		}
		switch {
		case len(eb) == 0 || len(ea) > 0 && ea[0].Name < eb[0].Name:
			err = d.gone(JoinPath(dir, ea[0].Name), ea[0], depth)
			ea = ea[1:]
		case len(ea) == 0 || eb[0].Name < ea[0].Name:
			err = d.came(JoinPath(dir, eb[0].Name), eb[0], depth)
			eb = eb[1:]
		default:
			err = d.pair(JoinPath(dir, ea[0].Name), ea[0], eb[0], depth)
			ea, eb = ea[1:], eb[1:]
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *differ) emit(path string, kind ChangeKind, before, after *Entry) error {
	c := Change{Path: path, Kind: kind}
	if before != nil {
		o := *before
		c.Old = &o
	}
	if after != nil {
		n := *after
		c.New = &n
	}
	return d.fn(c)
}

// gone reports e, found at path in the old tree only, and its subtree.
func (d *differ) gone(path string, e Entry, depth int) error {
	if err := d.emit(path, Deleted, &e, nil); err != nil {
		return err
	}
	return d.subtree(path, &e, Deleted, depth)
}

// came reports e, found at path in the new tree only, and its subtree.
func (d *differ) came(path string, e Entry, depth int) error {
	if err := d.emit(path, Added, nil, &e); err != nil {
		return err
	}
	return d.subtree(path, &e, Added, depth)
}

// subtree reports every descendant of e, if it is a captured dir, as kind.
func (d *differ) subtree(path string, e *Entry, kind ChangeKind, depth int) error {
	if !e.IsCapturedDir() {
		return nil
	}
	w := walker{ctx: d.ctx, l: d.l, fn: func(p string, x *Entry) error {
		if kind == Deleted {
			return d.emit(p, kind, x, nil)
		}
		return d.emit(p, kind, nil, x)
	}}
	return w.walk(path, e.Hash, depth+1)
}

// pair compares the entries a (old) and b (new) that share a name.
func (d *differ) pair(path string, a, b Entry, depth int) error {
	switch {
	case a.Kind != b.Kind:
		if err := d.emit(path, TypeChanged, &a, &b); err != nil {
			return err
		}
		if err := d.subtree(path, &a, Deleted, depth); err != nil {
			return err
		}
		return d.subtree(path, &b, Added, depth)
	case a.Kind == KindDir && (a.Uncaptured || b.Uncaptured):
		if !a.sameContent(&b) || a.Mode != b.Mode || !a.SameOwner(&b) {
			return d.emit(path, Modified, &a, &b)
		}
		return nil
	case a.Kind == KindDir:
		if a.Mode != b.Mode || !a.SameOwner(&b) {
			if err := d.emit(path, ModeChanged, &a, &b); err != nil {
				return err
			}
		}
		if a.Hash == b.Hash {
			return nil // equal subtree: never loaded
		}
		return d.dir(path, a.Hash, b.Hash, depth+1)
	case !a.sameContent(&b):
		return d.emit(path, Modified, &a, &b)
	case a.Mode != b.Mode || !a.SameOwner(&b):
		return d.emit(path, ModeChanged, &a, &b)
	}
	return nil
}

// sameContent compares what Modified is about: hash, target, size, the
// uncaptured flag and file count. Mode, owner and LinkTo are not content.
func (e *Entry) sameContent(o *Entry) bool {
	return e.Hash == o.Hash && e.Target == o.Target && e.Uncaptured == o.Uncaptured && e.Size == o.Size && e.Files == o.Files
}
