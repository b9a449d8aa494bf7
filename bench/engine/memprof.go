//go:build linux

package engine

import (
	"bytes"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

// resetHWM resets the process's peak RSS (VmHWM) to its current RSS
// (Linux: clear_refs 5), so VmHWM after an in-process operation is that
// operation's peak (plus whatever the harness itself holds).
func resetHWM() {
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// heapPeak samples the heap while an operation runs and keeps the heap
// profile taken when the heap in use was largest.
type heapPeak struct {
	stopc chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	max   uint64
	prof  []byte
}

func startHeapPeak() *heapPeak {
	runtime.MemProfileRate = 64 << 10
	h := &heapPeak{stopc: make(chan struct{})}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.stopc:
				return
			case <-t.C:
				h.sample()
			}
		}
	}()
	return h
}

func (h *heapPeak) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h.mu.Lock()
	defer h.mu.Unlock()
	if ms.HeapInuse <= h.max {
		return
	}
	h.max = ms.HeapInuse
	var b bytes.Buffer
	if pprof.Lookup("heap").WriteTo(&b, 0) == nil {
		h.prof = b.Bytes()
	}
}

// stop ends sampling, writes the peak's profile to name and returns the
// largest heap in use seen.
func (h *heapPeak) stop(name string) uint64 {
	close(h.stopc)
	h.wg.Wait()
	h.sample()
	if h.prof != nil {
		os.WriteFile(name, h.prof, 0o644)
	}
	return h.max
}
