package stateignore

import (
	"context"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker/ignore"
)

// RulesChanged reports whether an ignore file of a directory of dirty
// differs between the states base and now, read through loader. A scoped
// capture whose rules changed must read everything: the directories it
// took from base were judged by other rules.
func RulesChanged(ctx context.Context, loader manifest.Loader, base, now cas.Hash, dirty map[string]bool) (bool, error) {
	tree := func(root cas.Hash, d string) (*manifest.Tree, error) {
		h := root
		if d != "" {
			e, err := manifest.Find(ctx, loader, root, d)
			if err != nil || e == nil || !e.IsCapturedDir() {
				return nil, err
			}
			h = e.Hash
		}
		return loader.LoadTree(ctx, h)
	}
	for d := range dirty {
		a, err := tree(base, d)
		if err != nil {
			return false, err
		}
		b, err := tree(now, d)
		if err != nil {
			return false, err
		}
		for _, name := range ignore.FileNames {
			var ea, eb *manifest.Entry
			if a != nil {
				if e, ok := a.Lookup(name); ok {
					ea = e
				}
			}
			if b != nil {
				if e, ok := b.Lookup(name); ok {
					eb = e
				}
			}
			if !ea.Equal(eb) {
				return true, nil
			}
		}
	}
	return false, nil
}
