package walker

import (
	"sync"
	"time"

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
// or a new one while there are fewer than Options.Workers (see
// mayAddWorker); otherwise inline, so the walk never waits for a slot
// it could be holding itself. Workers stay until the capture ends,
// taking one job after another: a goroutine per directory would grow a
// fresh stack for each (a tenth of a no-change capture's CPU time went
// to copying stacks). t calls Done on wg when it has run.
func (c *capture) spawn(wg *sync.WaitGroup, job task) {
	wg.Add(1)
	select {
	case c.jobs <- job:
		return
	default:
	}
	if c.mayAddWorker() {
		select {
		case c.sem <- struct{}{}:
			if testHookWorkers != nil {
				testHookWorkers(len(c.sem))
			}
			go c.worker(job)
			return
		default:
		}
	}
	job.run()
}

// A capture starts with c.warm workers, GOMAXPROCS but at least 4. It
// takes up to Options.Workers once it has read warmReads files, or
// waited on the disk to list a directory (see noteListing). A warm
// capture, the inodes in memory and the files vouched for by the stat
// cache, is bound by the CPUs. More workers there only grew more stacks
// and arrays: with 16, a no-change capture of the Go tree took 170 more
// page faults. Files read, or a walk that waits on the disk, want them.
const warmReads = 16

var slowListing = time.Millisecond // a variable for tests

// testHookWorkers (tests) is told the number of workers each time one
// starts.
var testHookWorkers func(n int)

// mayAddWorker reports whether spawn may start a worker, if there are
// fewer than Options.Workers.
func (c *capture) mayAddWorker() bool {
	if c.cold.Load() || len(c.sem) < c.warm {
		return true
	}
	if c.reads.Load() >= warmReads {
		c.cold.Store(true)
		return true
	}
	return false
}

// noteListing marks the capture cold when listing a directory of n
// entries through d (their lstat included) took long enough that it
// may have waited on the disk (see waitedOnDisk): more than a
// millisecond and 10 µs an entry, several times what it takes when the
// inodes are in memory.
func (c *capture) noteListing(d *dirh, took time.Duration, n int) {
	if !c.cold.Load() && waitedOnDisk(d, took, n, c.inblock0) {
		c.cold.Store(true)
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
