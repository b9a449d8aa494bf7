package watch

import (
	"context"

	"github.com/turnback/turnback/manifest"
)

// DefaultQueueSize is the default bound of the watcher's own event queue.
const DefaultQueueSize = 16384

// Options configure a Watcher. The zero value uses the defaults.
type Options struct {
	// Ignored reports whether the path rel (slash-separated, relative to
	// the work tree) is ignored; isDir says whether it is a directory.
	// The watcher neither watches ignored directories nor reports events
	// on ignored paths. It must never ignore what the capture reads
	// (ignoring less only costs events). Nil: a walker.Ignorer on the
	// work tree (built-in rules and the .gitignore, .ignore and
	// .turnbackignore files, as the walker reads them).
	Ignored func(rel string, isDir bool) bool
	// Forget, if set, is called with a directory whose ignore files may
	// have changed, or that was created, removed or renamed: a caching
	// Ignored drops what it knows about it and everything below it ("" is
	// everything). With Ignored nil it is the default Ignorer's Forget.
	Forget func(rel string)
	// QueueSize bounds the events read from the kernel and not yet
	// handled; beyond it events are dropped and the watcher is in doubt.
	// 0 means DefaultQueueSize.
	QueueSize int
	// CookieDir is a directory outside the work tree where Sync creates
	// its marker files. Empty: a new temporary directory, removed by
	// Close.
	CookieDir string
	// Logf, if set, hears about doubts and rebuilds.
	Logf func(format string, args ...any)
	// StartPause, if set, is called between directories while Start
	// builds the watches; it may block, and the build waits for it (a
	// caller whose own work should not share the machine with the
	// build). It must return once ctx is done.
	StartPause func(ctx context.Context)
}

// Changes are what happened in the work tree between two calls of Take.
type Changes struct {
	// Dirs are the directories (slash-separated, "" the root) whose
	// entries changed, or one of whose entries' content or attributes
	// did. Their ancestors are not listed (Dirty adds them).
	Dirs map[string]bool
	// Full: the watcher is in doubt; the next capture must read
	// everything. Dirs is then incomplete.
	Full bool
	// Reason says why Full is set.
	Reason string
}

// Dirty returns the predicate for walker.Options.Dirty: true for every
// directory of c.Dirs and all their ancestors. It returns nil (read
// everything) when c.Full is set.
func (c Changes) Dirty() func(rel string) bool {
	if c.Full {
		return nil
	}
	set := map[string]bool{}
	for d := range c.Dirs {
		for !set[d] {
			set[d] = true
			if d == "" {
				break
			}
			d = manifest.ParentPath(d)
		}
	}
	return func(rel string) bool { return set[rel] }
}

// Merge adds o to c (for a caller that must keep changes it took but
// could not use, say after a failed capture).
func (c *Changes) Merge(o Changes) {
	if c.Dirs == nil {
		c.Dirs = map[string]bool{}
	}
	for d := range o.Dirs {
		c.Dirs[d] = true
	}
	if o.Full && !c.Full {
		c.Full, c.Reason = true, o.Reason
	}
}
