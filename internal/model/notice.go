package model

import (
	"slices"
	"strings"
)

// NoticeKey is the key of session's notice.
func NoticeKey(session string) []byte { return []byte(PrefixNotice + session) }

// NoticePaths is how many paths a notice entry keeps; the rest are
// counted in More.
const NoticePaths = 20

// noticeEntries is how many entries a notice keeps (the oldest go).
const noticeEntries = 20

// Add adds to n the entry of op of turns, changing paths (a directory
// whose contents are listed too is left out), and drops the oldest
// entries beyond what a notice keeps.
func (n *Notice) Add(op string, turns []int, changed []string) {
	all := slices.Clone(changed)
	slices.Sort(all)
	var paths []string // without a directory whose contents are listed
	for _, p := range all {
		i, _ := slices.BinarySearch(all, p+"/")
		if i == len(all) || !strings.HasPrefix(all[i], p+"/") {
			paths = append(paths, p)
		}
	}
	e := NoticeEntry{Op: op, Turns: slices.Clone(turns), Paths: paths}
	if len(paths) > NoticePaths {
		e.Paths, e.More = paths[:NoticePaths], len(paths)-NoticePaths
	}
	n.Version = MetaVersion
	n.Entries = append(n.Entries, e)
	if k := len(n.Entries) - noticeEntries; k > 0 {
		n.Entries = n.Entries[k:]
	}
}
