package model

// What a redo of several steps reports: each path once, as the redo
// leaves it.

import (
	"slices"

	"github.com/turnback/turnback/manifest"
)

// StepReport is one redo step's lists (RestoreResult or Preview).
type StepReport struct {
	Restored, Deleted, Created []string
	Conflicts, NotRestorable   []PathNote
}

// NetReport merges the lists of the steps of one redo, oldest first:
// a path any step rewrote, removed or brought back is listed once, by
// whether it existed before the first step that touched it and after
// the last (made then removed: not listed); a note on a path keeps the
// last step's.
func NetReport(steps []StepReport) (restored, deleted, created []string, conflicts, notRestorable []PathNote) {
	type life struct{ before, after bool }
	paths := map[string]*life{}
	touch := func(ps []string, before, after bool) {
		for _, p := range ps {
			if l := paths[p]; l != nil {
				l.after = after
			} else {
				paths[p] = &life{before, after}
			}
		}
	}
	for _, s := range steps {
		touch(s.Restored, true, true)
		touch(s.Deleted, true, false)
		touch(s.Created, false, true)
	}
	for p, l := range paths {
		switch {
		case l.before && l.after:
			restored = append(restored, p)
		case l.before:
			deleted = append(deleted, p)
		case l.after:
			created = append(created, p)
		}
	}
	for _, l := range []*[]string{&restored, &deleted, &created} {
		slices.SortFunc(*l, manifest.ComparePaths)
	}
	var cs, ns [][]PathNote
	for _, s := range steps {
		cs, ns = append(cs, s.Conflicts), append(ns, s.NotRestorable)
	}
	return restored, deleted, created, lastNotes(cs), lastNotes(ns)
}

// lastNotes joins the steps' notes, one a path: the last step's, in the
// order the paths first came.
func lastNotes(steps [][]PathNote) []PathNote {
	var out []PathNote
	at := map[string]int{}
	for _, notes := range steps {
		for _, n := range notes {
			if i, ok := at[n.Path]; ok {
				out[i] = n
				continue
			}
			at[n.Path] = len(out)
			out = append(out, n)
		}
	}
	return out
}
