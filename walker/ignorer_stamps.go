package walker

import (
	"slices"

	"github.com/turnback/turnback/walker/gitindex"
)

// Stamps returns the versions of the git indexes the Ignorer judged
// tracked directories by, each time it read one: a caller whose capture
// read other versions knows that its verdicts may be stale there.
func (g *Ignorer) Stamps() []gitindex.Stamp {
	g.track.mu.Lock()
	defer g.track.mu.Unlock()
	return slices.Clone(g.track.stamps)
}

// SameIndexes reports whether every index version in judged is the one
// captured names for the same index, if it names one.
func SameIndexes(judged, captured []gitindex.Stamp) bool {
	for _, j := range judged {
		for _, c := range captured {
			if c.Path == j.Path && c != j {
				return false
			}
		}
	}
	return true
}
