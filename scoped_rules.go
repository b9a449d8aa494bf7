package turnback

import (
	"path"
	"slices"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/restore"
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
func (r *Repo) latestAfterRestore(result, current cas.Hash, actions []restore.Action) ([]cas.Entry, [][]byte) {
	writes := r.latestEntries(result, current)
	if rewritesRules(actions) {
		return writes[:1], [][]byte{[]byte(model.KeyCaptureMemo)} // m/latest comes first
	}
	return writes, nil
}
