package walker

import (
	"path/filepath"
	"slices"

	"github.com/turnback/turnback/walker/gitindex"
)

// newRepo reports whether directory rel, read by name and listed as
// ents, holds a repository whose index Base was not captured under (a
// "git init" since). What that index tracks (a node_modules, say) may
// be a name Base skipped, which the by-name read leaves unread: the
// directory is read whole instead.
func (c *capture) newRepo(rel string, ents []dirEnt) bool {
	if rel == "" || c.track.abs == "" {
		return false
	}
	mode, ok := entsDir{ents: ents}.Lookup(".git")
	if !ok || !mode.IsDir() && !mode.IsRegular() {
		return false
	}
	gitDir, ok, err := gitindex.GitDir(filepath.Join(c.track.abs, filepath.FromSlash(rel)))
	if err != nil || !ok {
		return true // tracking decides; Base's stamps cannot vouch
	}
	index := filepath.Join(gitDir, "index")
	stamps, _ := c.track.idx.current(c.opts.Base)
	return !slices.ContainsFunc(stamps, func(s gitindex.Stamp) bool { return s.Path == index })
}
