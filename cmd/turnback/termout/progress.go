package termout

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/turnback/turnback"
)

// Progress is the progress line of a command on a terminal: once the
// command has run for more than a second, a line on w says how far the
// capture (Counters) or the restore (Restore) has got, redrawn five
// times a second until Stop, which erases it.
type Progress struct {
	Counters *turnback.Progress
	Restore  *turnback.RestoreProgress
	stop     chan struct{}
	done     sync.WaitGroup
}

// StartProgress starts the progress line on w.
func StartProgress(w io.Writer) *Progress {
	p := &Progress{Counters: &turnback.Progress{}, Restore: &turnback.RestoreProgress{}, stop: make(chan struct{})}
	p.done.Add(1)
	go p.run(w)
	return p
}

func (p *Progress) run(w io.Writer) {
	defer p.done.Done()
	select {
	case <-p.stop:
		return
	case <-time.After(time.Second):
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	start := time.Now().Add(-time.Second)
	for {
		if total := p.Restore.Total.Load(); total > 0 {
			fmt.Fprintf(w, "\rturnback: restoring, %d of %d steps in %.0fs ", p.Restore.Done.Load(), total, time.Since(start).Seconds())
		} else {
			fmt.Fprintf(w, "\rturnback: %d files scanned, %d read (%s) in %.0fs ",
				p.Counters.Files.Load(), p.Counters.HashedFiles.Load(),
				HumanBytes(p.Counters.HashedBytes.Load()), time.Since(start).Seconds())
		}
		select {
		case <-p.stop:
			fmt.Fprint(w, "\r\033[K")
			return
		case <-tick.C:
		}
	}
}

// Stop erases the line and waits until nothing more is written.
func (p *Progress) Stop() {
	close(p.stop)
	p.done.Wait()
}
