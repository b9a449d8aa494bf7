package walker

import (
	"context"
	"io/fs"
	"slices"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
)

// inodeID names one file on one device, within one capture only (inode
// numbers never reach a tree: see "Hard links" in the package doc).
type inodeID struct{ dev, ino uint64 }

// linkCand is a captured regular file with more than one link.
type linkCand struct {
	path  string
	id    inodeID
	nlink uint64
	e     manifest.Entry // as captured, LinkTo empty
}

// setOwner records fi's owner in e, where the platform has one.
func setOwner(e *manifest.Entry, fi fs.FileInfo) {
	if uid, gid, ok := ownerOf(fi); ok {
		e.Owned, e.UID, e.GID = true, uid, gid
	}
}

// noteLink remembers e (file name of directory rel, listed as fi) if it
// has other links.
func (c *capture) noteLink(rel, name string, fi fs.FileInfo, e *manifest.Entry) {
	id, nlink, ok := linkOf(fi)
	if !ok || nlink < 2 {
		return
	}
	p := manifest.JoinPath(rel, name)
	c.mu.Lock()
	c.links = append(c.links, linkCand{path: p, id: id, nlink: nlink, e: *e})
	c.mu.Unlock()
}

// linkEdits groups the candidates by inode and returns the entries to
// rewrite with their LinkTo set: every member of a group of two or more
// gets the path of the group's first member in tree order. complete is
// false when some group has links the capture did not see (outside the
// work tree, in an ignored directory, or in a directory it did not read).
func linkEdits(cands []linkCand) (edits map[string]*manifest.Entry, complete bool) {
	groups := map[inodeID][]linkCand{}
	for _, lc := range cands {
		groups[lc.id] = append(groups[lc.id], lc)
	}
	complete = true
	for _, g := range groups {
		if uint64(len(g)) < g[0].nlink {
			complete = false
		}
		if len(g) < 2 {
			continue
		}
		slices.SortFunc(g, func(a, b linkCand) int { return manifest.ComparePaths(a.path, b.path) })
		for _, m := range g {
			e := m.e
			e.LinkTo = g[0].path
			if edits == nil {
				edits = map[string]*manifest.Entry{}
			}
			edits[m.path] = &e
		}
	}
	return edits, complete
}

// applyLinks writes the link groups into the captured tree root (whose
// blobs are flushed) and returns the new root.
func (c *capture) applyLinks(ctx context.Context, root cas.Hash, edits map[string]*manifest.Entry) (cas.Hash, error) {
	w := c.store.NewWriter()
	h, err := manifest.Edit(ctx, c.loader, w, root, edits)
	if err != nil {
		w.Cancel()
		return cas.Hash{}, err
	}
	if err := w.Flush(); err != nil {
		return cas.Hash{}, err
	}
	ws := w.Stats()
	c.stats.NewBlobs += ws.NewBlobs
	c.stats.NewBytes += ws.NewBytes
	return h, nil
}
