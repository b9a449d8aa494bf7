package walker

import (
	"sync"

	"github.com/turnback/turnback/manifest"
)

// The capture's bookkeeping shared by its goroutines, and the workers
// that read directories and files in parallel (see "Algorithm" in
// doc.go).

func (c *capture) problem(p string, err error) {
	c.mu.Lock()
	c.stats.Problems = append(c.stats.Problems, Problem{Path: p, Err: err.Error()})
	c.mu.Unlock()
}

func (c *capture) uncaptured(p string, e *manifest.Entry, reason string) {
	c.mu.Lock()
	c.stats.Uncaptured = append(c.stats.Uncaptured, Uncaptured{Path: p, Kind: e.Kind.String(), Size: e.Size, Files: e.Files, Reason: reason, Hash: e.Hash})
	c.mu.Unlock()
}

// uncapturedDir is uncaptured for a directory the large-directory rule
// left uncaptured, isNew when it is so for the first time.
func (c *capture) uncapturedDir(p string, e *manifest.Entry, reason string, isNew bool) {
	c.mu.Lock()
	c.stats.Uncaptured = append(c.stats.Uncaptured, Uncaptured{Path: p, Kind: e.Kind.String(), Files: e.Files, Reason: reason, New: isNew})
	c.mu.Unlock()
}

func (c *capture) add(f func(*Stats)) {
	c.mu.Lock()
	f(&c.stats)
	c.mu.Unlock()
}

// spawn runs fn on another goroutine if one is free: an idle worker,
// or a new one while there are fewer than Options.Workers; otherwise
// inline, so the walk never waits for a slot it could be holding
// itself. Workers stay until the capture ends, taking one job after
// another: a goroutine per directory would grow a fresh stack for each
// (a tenth of a no-change capture's CPU time went to copying stacks).
// t calls Done on wg when it has run.
func (c *capture) spawn(wg *sync.WaitGroup, job task) {
	wg.Add(1)
	select {
	case c.jobs <- job:
		return
	default:
	}
	select {
	case c.sem <- struct{}{}:
		go c.worker(job)
	default:
		job.run()
	}
}

// worker runs job, then the jobs spawn hands it, until the capture ends.
func (c *capture) worker(job task) {
	defer func() { <-c.sem }()
	for {
		job.run()
		select {
		case job = <-c.jobs:
		case <-c.done:
			return
		}
	}
}
