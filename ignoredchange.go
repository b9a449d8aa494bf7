package turnback

// A turn whose changes all fell in skipped paths leaves the same tree
// at its end as at its snap, and is dropped. So that it is not dropped
// in silence, a snap notes the stat data of every path its capture
// skipped (the outermost ones: a file, or a directory whose own mtime
// moves when entries are added, removed or renamed in it), and the end
// that drops the turn compares. This is a heuristic: an edit in place
// deeper inside a skipped directory is not seen, so a dropped turn with
// no difference found says only that it changed nothing turnback
// captures.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
	"github.com/turnback/turnback/walker"
)

// maxSkipStamps bounds the skipped paths a snap notes (one lstat each).
const maxSkipStamps = 4096

// statStamp is what lstat says of rel, "" if it is not there.
func statStamp(root *os.Root, rel string) string {
	fi, err := root.Lstat(filepath.FromSlash(rel))
	if err != nil {
		return ""
	}
	return strconv.FormatInt(fi.Size(), 10) + "/" + strconv.FormatInt(fi.ModTime().UnixNano(), 10) + "/" + fi.Mode().String()
}

// stampSkipped notes the stat data of skipped paths (at most
// maxSkipStamps).
func (r *Repo) stampSkipped(turn int, skipped []walker.Ignored) (*model.SkipStamps, error) {
	root, err := os.OpenRoot(r.workTree)
	if err != nil {
		return nil, fmt.Errorf("turnback: open work tree: %w", err)
	}
	defer root.Close()
	s := &model.SkipStamps{Turn: turn, Entries: []model.SkipStamp{}}
	for i, ig := range skipped {
		if i == maxSkipStamps {
			break
		}
		ig.Rules = "" // the state's record keeps it; not shown (ignored_changed)
		s.Entries = append(s.Entries, model.SkipStamp{Ignored: ig, Stat: statStamp(root, ig.Path)})
	}
	return s, nil
}

// skipStampsEntry is the record of the stamps a snap took for turn n.
func (r *Repo) skipStampsEntry(n int, skipped []walker.Ignored) (cas.Entry, error) {
	s, err := r.stampSkipped(n, skipped)
	if err != nil {
		return cas.Entry{}, err
	}
	return cas.Entry{Key: model.SkipsKey(r.session, n), Value: model.EncodeJSON(s)}, nil
}

// ignoredChanged returns the skipped paths whose stat data differ from
// what the snap of turn n noted (skipped: what the capture closing the
// turn skipped), nil if none or if the snap noted nothing.
func (r *Repo) ignoredChanged(ctx context.Context, n int, skipped []walker.Ignored) ([]walker.Ignored, error) {
	var before model.SkipStamps
	ok, err := r.getJSON(ctx, model.SkipsKey(r.session, n), &before)
	if err != nil || !ok || before.Turn != n {
		return nil, err
	}
	now, err := r.stampSkipped(n, skipped)
	if err != nil {
		return nil, err
	}
	old := map[string]model.SkipStamp{}
	for _, e := range before.Entries {
		old[e.Ignored.Path] = e
	}
	var out []walker.Ignored
	seen := map[string]bool{}
	for _, e := range now.Entries {
		seen[e.Ignored.Path] = true
		if o, ok := old[e.Ignored.Path]; !ok || o.Stat != e.Stat {
			out = append(out, e.Ignored)
		}
	}
	if len(now.Entries) < maxSkipStamps {
		// Skipped then, gone now (deleted): changed too.
		root, err := os.OpenRoot(r.workTree)
		if err != nil {
			return nil, fmt.Errorf("turnback: open work tree: %w", err)
		}
		defer root.Close()
		for _, e := range before.Entries {
			if !seen[e.Ignored.Path] && statStamp(root, e.Ignored.Path) != e.Stat {
				out = append(out, e.Ignored)
			}
		}
	}
	return out, nil
}
