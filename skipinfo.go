package turnback

import (
	"context"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/walker"
)

// skipRules is snapshotRecord.Rules of a snapshot captured under the
// rules that judge a directory by what it holds (CACHEDIR.TAG, ...).
const skipRules = 2

// skipInfo is what a state's capture skipped that its tree cannot tell:
// the directories skipped for what they held. A restore needs it to
// leave them alone (ignored_states.go).
type skipInfo struct {
	generated []string
}

// skipInfoOf picks the directories skipped by evidence from a capture's
// Result.Skipped.
func skipInfoOf(skipped []walker.Ignored) *skipInfo {
	s := &skipInfo{}
	for _, ig := range skipped {
		if ig.Rule == "evidence" {
			s.generated = append(s.generated, ig.Path)
		}
	}
	return s
}

// skipInfoOfRoot returns what the capture of root skipped by evidence:
// from this process's memory of its recent captures, else from the
// snapshot's record; nil when neither knows (a snapshot recorded before
// these rules, or a state never recorded).
func (r *Repo) skipInfoOfRoot(ctx context.Context, root cas.Hash) (*skipInfo, error) {
	if sk, ok := r.gitIdx.Skipped(root); ok {
		return skipInfoOf(sk), nil
	}
	var rec snapshotRecord
	ok, err := r.getJSON(ctx, snapKey(root), &rec)
	if err != nil || !ok || rec.Rules < skipRules {
		return nil, err
	}
	return &skipInfo{generated: rec.Generated}, nil
}
