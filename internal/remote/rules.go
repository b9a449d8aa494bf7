package remote

import (
	"context"

	"github.com/turnback/turnback/cas"
)

// ruleBlobs places the rule blobs of a session's states (its records
// name them, no tree does: exchange.RuleBlobs), adding their packs to
// deps. One this store lacks is passed over: where it is read, its
// directory's rules are unknown, here and there alike.
func (p *pusher) ruleBlobs(ctx context.Context, blobs []cas.Hash, deps map[int]bool, seen map[cas.Hash]bool) error {
	for _, b := range blobs {
		if seen[b] {
			continue
		}
		seen[b] = true
		if ok, err := p.store.HasContent(ctx, b); err != nil {
			return err
		} else if !ok {
			continue
		}
		if err := p.content(ctx, b, deps); err != nil {
			return err
		}
	}
	p.seal(&p.blobs)
	return nil
}

// ruleBlobs downloads the rule blobs the head's records name that the
// store lacks. One in no pack the head names (a push that lacked it,
// or an older one) is passed over: its directory's rules are unknown.
func (f *fetcher) ruleBlobs(ctx context.Context, blobs []cas.Hash) error {
	var want []cas.Hash
	for _, b := range blobs {
		if _, ok := f.ix.locs[b]; ok {
			want = append(want, b)
		}
	}
	return f.content(ctx, want)
}
