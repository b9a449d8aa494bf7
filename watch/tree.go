// The watched directory tree: one node per directory, found and changed
// by slash path.

package watch

import (
	"path"
	"slices"
	"strings"

	"github.com/turnback/turnback/manifest"
)

// node is a directory of the watched tree.
type node struct {
	kids    map[string]*node
	parent  *node // nil for the root
	name    string
	watched bool
	// id is the identity of the directory watched here (zero: unknown);
	// Watcher.ids maps it back to this node while it is watched.
	id fileID
}

// fileID identifies a directory whatever its path: device and inode.
// The zero value means unknown.
type fileID struct{ dev, ino uint64 }

// path returns n's path in its tree (n must not be detached).
func (n *node) path() string {
	var names []string
	for ; n.parent != nil; n = n.parent {
		names = append(names, n.name)
	}
	slices.Reverse(names)
	return strings.Join(names, "/")
}

func (n *node) find(rel string) *node {
	if rel == "" {
		return n
	}
	for _, name := range strings.Split(rel, "/") {
		if n = n.kids[name]; n == nil {
			return nil
		}
	}
	return n
}

func (n *node) insert(rel string) *node {
	if rel == "" {
		return n
	}
	for _, name := range strings.Split(rel, "/") {
		k := n.kids[name]
		if k == nil {
			if n.kids == nil {
				n.kids = map[string]*node{}
			}
			k = &node{parent: n, name: name}
			n.kids[name] = k
		}
		n = k
	}
	return n
}

func (n *node) detach(rel string) *node {
	p := n.find(manifest.ParentPath(rel))
	if p == nil {
		return nil
	}
	name := path.Base(rel)
	k := p.kids[name]
	delete(p.kids, name)
	return k
}

func (n *node) each(rel string, fn func(string, *node)) {
	fn(rel, n)
	for name, k := range n.kids {
		k.each(manifest.JoinPath(rel, name), fn)
	}
}
