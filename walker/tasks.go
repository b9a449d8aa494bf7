package walker

import (
	"context"
	"errors"

	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker/ignore"
)

// A task is one job of a directory's capture that spawn may hand to a
// worker: run does it, then calls Done on its directory's wait group.
// Tasks are structs, not closures: a directory's subdirectory tasks sit
// in one array of the capture's lists (a closure per subdirectory, and
// the variables it shared, were a tenth of a no-change capture's heap).
type task interface{ run() }

// fail records err as the directory's error, unless it has one.
func (s *dirScratch) fail(err error) {
	s.errMu.Lock()
	if s.firstErr == nil {
		s.firstErr = err
	}
	s.errMu.Unlock()
}

// subTask captures subdirectory i of the directory whose scratch is sc
// (see dir), which holds its entry in sc.out[i] until it is replaced.
type subTask struct {
	c          *capture
	ctx        context.Context
	sc         *dirScratch
	d          *dirh
	rel, p     string
	i          int
	m          *ignore.Matcher // its parent's, or for SourceForced its Exclude
	src        ignore.Source
	probe      ignore.Probe
	prev, base *prevDir
	room       subRoom
}

func (t *subTask) run() {
	defer t.sc.wg.Done()
	c, sc, i := t.c, t.sc, t.i
	e := &sc.out[i]
	fi := sc.ents[i].fi
	sub, err := c.subdir(t.ctx, t.d, t.p, e.Name, fi, t.m, t.src, t.probe, t.prev, t.base, &t.room)
	if errors.Is(err, errVanished) {
		sc.keep[i] = false
		return
	}
	if ev, ok := generated(err); ok {
		sc.keep[i] = false
		c.ignored(t.rel, e.Name, fi, ignore.Verdict{Ignored: true, Source: ignore.SourceEvidence, Evidence: ev}, "")
		return
	}
	if err != nil {
		sc.fail(err)
		return
	}
	sub.Name, sub.Mode = e.Name, e.Mode
	sub.Owned, sub.UID, sub.GID = e.Owned, e.UID, e.GID
	*e = sub
}

// fileTask reads file i (entry e, path p) of the directory whose scratch
// is sc, and stores it unless it is over the size limit.
type fileTask struct {
	c       *capture
	ctx     context.Context
	sc      *dirScratch
	d       *dirh
	p, name string
	i       int
	e       manifest.Entry
	over    bool
}

func (t *fileTask) run() {
	defer t.sc.wg.Done()
	c, sc, i := t.c, t.sc, t.i
	fe, ce, err := c.file(t.ctx, t.d, t.p, t.name, t.e, !t.over)
	if errors.Is(err, errVanished) {
		sc.keep[i] = false
		c.prog.Files.Add(-1)
		c.add(func(s *Stats) { s.Files-- })
		return
	}
	if err != nil {
		sc.fail(err)
		return
	}
	sc.out[i], sc.fresh[i] = fe, ce
}
