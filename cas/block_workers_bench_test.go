//go:build unix

package cas

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkBlockWriterWorkers: small files stored into blocks by sixteen
// goroutines at once, as a capture's workers do (issue #34). Run with
// -cpu 1,2: if the compression of blocks ran one at a time, MB/s would
// not grow with the second core.
func BenchmarkBlockWriterWorkers(b *testing.B) {
	ctx := context.Background()
	const (
		workers = 16
		files   = 2000
		dirs    = 200
	)
	pool := make([][]byte, files)
	var total int64
	for i := range pool {
		pool[i] = textBytes(uint64(i), 2000+(i*7919)%20000)
		total += int64(len(pool[i]))
	}
	s := newTestStore(b, openTestBadger(b, b.TempDir()))
	b.SetBytes(total)
	cpu0 := cpuTime()
	b.ResetTimer()
	for round := 0; b.Loop(); round++ {
		w := s.NewWriter()
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for g := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := make([]byte, 0, 32<<10)
				for i := g; i < files; i += workers {
					// New content each round: the round number in front.
					buf = binary.AppendUvarint(append(buf[:0], "// "...), uint64(round))
					buf = append(buf, pool[i]...)
					gctx := WithBlockGroup(ctx, fmt.Sprintf("dir%d/", i%dirs))
					if _, _, err := w.PutFile(gctx, bytes.NewReader(buf), int64(len(buf))); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	// Cores used: CPU time over wall time (a loaded machine lowers it).
	b.ReportMetric((cpuTime()-cpu0).Seconds()/b.Elapsed().Seconds(), "cores")
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
