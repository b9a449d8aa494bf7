package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/turnback/turnback"
)

// progressKey stores the counters of a command in its context.
type progressState struct {
	counters *turnback.Progress
	restore  *turnback.RestoreProgress
	stop     chan struct{}
	done     sync.WaitGroup
}

// progressCounters returns counters that a line on stderr reports once a
// capture has run for more than a second, only when stderr is a terminal.
func progressCounters(g *globals) *turnback.Progress {
	if !g.errTTY {
		return nil
	}
	st := &progressState{counters: &turnback.Progress{}, restore: &turnback.RestoreProgress{}, stop: make(chan struct{})}
	g.progress = st
	st.done.Add(1)
	go st.run(g.stderr)
	return st.counters
}

func (st *progressState) run(w io.Writer) {
	defer st.done.Done()
	select {
	case <-st.stop:
		return
	case <-time.After(time.Second):
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	start := time.Now().Add(-time.Second)
	for {
		if total := st.restore.Total.Load(); total > 0 {
			fmt.Fprintf(w, "\rturnback: restoring, %d of %d steps in %.0fs ", st.restore.Done.Load(), total, time.Since(start).Seconds())
		} else {
			fmt.Fprintf(w, "\rturnback: %d files scanned, %d read (%s) in %.0fs ",
				st.counters.Files.Load(), st.counters.HashedFiles.Load(),
				humanBytes(st.counters.HashedBytes.Load()), time.Since(start).Seconds())
		}
		select {
		case <-st.stop:
			fmt.Fprint(w, "\r\033[K")
			return
		case <-tick.C:
		}
	}
}

// endProgress stops the progress line, if any.
func (g *globals) endProgress() {
	if st := g.progress; st != nil {
		close(st.stop)
		st.done.Wait()
		g.progress = nil
	}
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
