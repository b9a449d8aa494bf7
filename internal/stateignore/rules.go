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
	for d := range dirty {
		for _, name := range ignore.FileNames {
			// Find decodes only the entries on the way (manifest.Find).
			ea, err := manifest.Find(ctx, loader, base, manifest.JoinPath(d, name))
			if err != nil {
				return false, err
			}
			eb, err := manifest.Find(ctx, loader, now, manifest.JoinPath(d, name))
			if err != nil {
				return false, err
			}
			if !ea.Equal(eb) {
				return true, nil
			}
		}
	}
	return false, nil
}
