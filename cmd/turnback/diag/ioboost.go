package diag

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"strconv"
	"time"
)

// Reads from the disk hold a processor: a goroutine blocked in read(2)
// keeps its P until the runtime's monitor takes it back, up to 10 ms
// later. A first capture of a tree not in the page cache then left the
// two CPUs of a small machine idle part of the time. While the process
// reads from the disk, BoostIO runs twice as many Ps as CPUs, so
// compression goes on beside the reads. A first capture of bench's 1M
// tree, page cache dropped, took 89-93 s against 120-124 s, for the
// same CPU (bench/results/speed-35). Reads served from the page cache
// do not count: they block nothing, and more Ps than CPUs cost a
// no-change capture about 7% more CPU.

const (
	// ioTick: how often the counter is read while the disk is read;
	// ioIdleTick: while it is not.
	ioTick     = 100 * time.Millisecond
	ioIdleTick = time.Second

	// ioBusy: bytes read from the disk in one tick that start a boost.
	ioBusy = 4 << 20
	// ioQuiet: ticks under ioBusy/16 bytes each that end it.
	ioQuiet = 10
)

// BoostIO watches the process's disk reads (Linux /proc/self/io) until
// ctx ends, and sets GOMAXPROCS as described above. It does nothing
// when GOMAXPROCS is set in the environment, or where the counter
// cannot be read. It reports whether it started watching. A command
// that ends within the first tick reads nothing of /proc.
func BoostIO(ctx context.Context) bool {
	if os.Getenv("GOMAXPROCS") != "" {
		return false
	}
	boost := func(on bool) {
		if on {
			runtime.GOMAXPROCS(2 * runtime.GOMAXPROCS(0))
		} else {
			runtime.SetDefaultGOMAXPROCS() // and its updates to the CPU limit
		}
	}
	go ioBooster(ctx, ioTick, ioIdleTick, diskReadBytes, boost)
	return true
}

// ioBooster is BoostIO's loop, with the counter and the switch given.
func ioBooster(ctx context.Context, tick, idle time.Duration, read func() (int64, bool), boost func(on bool)) {
	t := time.NewTimer(tick)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return
	case <-t.C:
	}
	last, ok := read()
	if !ok {
		return
	}
	t.Reset(tick)
	boosted, quiet := false, 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n, ok := read()
		if !ok {
			return
		}
		delta := n - last
		last = n
		switch {
		case delta >= ioBusy && !boosted:
			boost(true)
			boosted, quiet = true, 0
		case boosted && delta < ioBusy/16:
			if quiet++; quiet >= ioQuiet {
				boost(false)
				boosted = false
			}
		case boosted:
			quiet = 0
		}
		if boosted || delta > 0 {
			t.Reset(tick)
		} else {
			t.Reset(idle)
		}
	}
}

// diskReadBytes returns the read_bytes line of /proc/self/io: what the
// process made the storage layer fetch.
func diskReadBytes() (int64, bool) {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	return parseReadBytes(data)
}

// parseReadBytes finds "read_bytes: N" in the text of /proc/<pid>/io.
func parseReadBytes(data []byte) (int64, bool) {
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		v, ok := bytes.CutPrefix(line, []byte("read_bytes:"))
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
		return n, err == nil && n >= 0
	}
	return 0, false
}
