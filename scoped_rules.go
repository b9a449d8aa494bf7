package turnback

import (
	"path"
	"slices"
	"strings"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/restore"
	"github.com/turnback/turnback/walker"
	"github.com/turnback/turnback/walker/ignore"
)

// rewritesRules reports whether a restore's actions write or remove an
// ignore file: the names its checkpoint skipped were then judged by
// rules the result no longer has.
func rewritesRules(actions []restore.Action) bool {
	return slices.ContainsFunc(actions, func(a restore.Action) bool {
		return slices.Contains(ignore.FileNames, path.Base(a.Path))
	})
}

// latestAfterRestore are the records that make a restore's result the
// newest state. Its checkpoint's skipped names go with it as its memo,
// unless the restore rewrote ignore rules: then no memo fits the
// result: the memo is deleted, and the next scoped capture reads
// everything (scopeBase).
func (r *Repo) latestAfterRestore(result, current cas.Hash, tracked []string, actions []restore.Action) ([]cas.Entry, [][]byte) {
	writes := r.latestEntriesTracked(result, current, tracked)
	if rewritesRules(actions) {
		return writes[:1], [][]byte{[]byte(model.KeyCaptureMemo)} // m/latest comes first
	}
	return writes, nil
}

// ignoredRules reports whether a scoped capture skipped an ignore file
// in a directory of dirty: no state holds it, so RulesChanged cannot
// tell whether it changed since the base, and what the base skipped
// (or kept) by it is doubtful.
func ignoredRules(skipped []walker.Ignored, dirty map[string]bool) bool {
	return slices.ContainsFunc(skipped, func(s walker.Ignored) bool {
		dir, name := path.Split(s.Path)
		return !s.Dir && slices.Contains(ignore.FileNames, name) && dirty[strings.TrimSuffix(dir, "/")]
	})
}
