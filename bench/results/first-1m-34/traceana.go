//go:build ignore

// 'traceana TRACE [x|hist|procs]' reads a runtime/trace of a turnback
// command (from a binary with trace.Start added to main for the
// measurement; that patch is not kept). Plain: goroutines running, in
// a syscall and runnable, on average; x: the same per second; hist: a
// histogram of syscall durations; procs: Ps running on average, and the
// syscall time of goroutines that came back with a P. It needs
// golang.org/x/exp/trace v0.0.0-20261113113407-e3970619a1a4: build it in
// a module of its own that requires that version.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"golang.org/x/exp/trace"
)

// prints, per second bucket: avg goroutines running, in syscall, runnable.
func main() {
	if len(os.Args) > 2 && os.Args[2] == "procs" {
		procs(os.Args[1])
		return
	}
	if len(os.Args) > 2 && os.Args[2] == "hist" {
		hist(os.Args[1])
		return
	}
	f, _ := os.Open(os.Args[1])
	r, err := trace.NewReader(f)
	if err != nil {
		panic(err)
	}
	type st struct {
		state trace.GoState
		since trace.Time
	}
	gs := map[trace.GoID]st{}
	acc := map[int]*[4]float64{} // bucket -> running, syscall, runnable, waiting
	var t0 trace.Time
	first := true
	add := func(from, to trace.Time, s trace.GoState) {
		idx := -1
		switch s {
		case trace.GoRunning:
			idx = 0
		case trace.GoSyscall:
			idx = 1
		case trace.GoRunnable:
			idx = 2
		}
		if idx < 0 {
			return
		}
		for from < to {
			b := int((from - t0) / 1e9)
			end := t0 + trace.Time(int64(b+1)*1e9)
			if end > to {
				end = to
			}
			if acc[b] == nil {
				acc[b] = &[4]float64{}
			}
			acc[b][idx] += float64(end-from) / 1e9
			from = end
		}
	}
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		if first {
			t0 = ev.Time()
			first = false
		}
		if ev.Kind() != trace.EventStateTransition {
			continue
		}
		stt := ev.StateTransition()
		if stt.Resource.Kind != trace.ResourceGoroutine {
			continue
		}
		id := stt.Resource.Goroutine()
		_, to := stt.Goroutine()
		if prev, ok := gs[id]; ok {
			add(prev.since, ev.Time(), prev.state)
		}
		gs[id] = st{to, ev.Time()}
	}
	var bs []int
	for b := range acc {
		bs = append(bs, b)
	}
	sort.Ints(bs)
	var tot [4]float64
	for _, b := range bs {
		a := acc[b]
		if len(os.Args) > 2 {
			fmt.Printf("%3d run %.2f sys %.2f runnable %.2f\n", b, a[0], a[1], a[2])
		}
		for i := range tot {
			tot[i] += a[i]
		}
	}
	n := float64(len(bs))
	fmt.Printf("secs %d avg running %.2f syscall %.2f runnable %.2f\n", len(bs), tot[0]/n, tot[1]/n, tot[2]/n)
}

func hist(path string) {
	f, _ := os.Open(path)
	r, _ := trace.NewReader(f)
	start := map[trace.GoID]trace.Time{}
	buckets := []float64{10e3, 50e3, 100e3, 500e3, 1e6, 5e6, 1e12}
	cnt := make([]int, len(buckets))
	sum := make([]float64, len(buckets))
	procSteal := 0
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		if ev.Kind() != trace.EventStateTransition {
			continue
		}
		stt := ev.StateTransition()
		if stt.Resource.Kind == trace.ResourceProc {
			from, to := stt.Proc()
			if from == trace.ProcRunning && to == trace.ProcIdle && ev.Goroutine() == trace.NoGoroutine {
				procSteal++
			}
			continue
		}
		if stt.Resource.Kind != trace.ResourceGoroutine {
			continue
		}
		id := stt.Resource.Goroutine()
		from, to := stt.Goroutine()
		if to == trace.GoSyscall {
			start[id] = ev.Time()
		} else if from == trace.GoSyscall {
			if s, ok := start[id]; ok {
				d := float64(ev.Time() - s)
				for i, b := range buckets {
					if d < b {
						cnt[i]++
						sum[i] += d
						break
					}
				}
				delete(start, id)
			}
		}
	}
	for i, b := range buckets {
		fmt.Printf("<%8.0fus n=%8d total=%6.1fs\n", b/1e3, cnt[i], sum[i]/1e9)
	}
	fmt.Println("proc steals-ish", procSteal)
}

func procs(path string) {
	f, _ := os.Open(path)
	r, _ := trace.NewReader(f)
	since := map[trace.ProcID]trace.Time{}
	var running float64
	var t0, t1 trace.Time
	first := true
	var sysHeld float64
	sysStart := map[trace.GoID]trace.Time{}
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		if first {
			t0 = ev.Time()
			first = false
		}
		t1 = ev.Time()
		if ev.Kind() != trace.EventStateTransition {
			continue
		}
		stt := ev.StateTransition()
		switch stt.Resource.Kind {
		case trace.ResourceProc:
			id := stt.Resource.Proc()
			from, to := stt.Proc()
			if to == trace.ProcRunning {
				since[id] = ev.Time()
			} else if from == trace.ProcRunning {
				if s, ok := since[id]; ok {
					running += float64(ev.Time()-s) / 1e9
					delete(since, id)
				}
			}
		case trace.ResourceGoroutine:
			id := stt.Resource.Goroutine()
			from, to := stt.Goroutine()
			if to == trace.GoSyscall {
				sysStart[id] = ev.Time()
			} else if from == trace.GoSyscall {
				if s, ok := sysStart[id]; ok && ev.Proc() != trace.NoProc {
					// returned with a P: if it is the same P it held it
					sysHeld += float64(ev.Time()-s) / 1e9
				}
				delete(sysStart, id)
			}
		}
	}
	w := float64(t1-t0) / 1e9
	fmt.Printf("wall %.1fs  P running avg %.2f  syscalls returning with a P: %.1fs (avg %.2f)\n", w, running/w, sysHeld, sysHeld/w)
}
