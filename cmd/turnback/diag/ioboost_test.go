package diag

import (
	"context"
	"slices"
	"testing"
	"time"
)

func TestParseReadBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: 8192\nwrite_bytes: 0\ncancelled_write_bytes: 0\n", 8192, true},
		{"read_bytes: 0\n", 0, true},
		{"rchar: 1\n", 0, false},
		{"read_bytes: x\n", 0, false},
		{"read_bytes: -5\n", -5, false},
		{"", 0, false},
	} {
		got, ok := parseReadBytes([]byte(c.in))
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("parseReadBytes(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestIOBooster: disk reads of ioBusy bytes in a tick double the Ps;
// ioQuiet ticks of almost none give them back; reads after that boost
// again. Reads from the page cache (the counter still) change nothing.
func TestIOBooster(t *testing.T) {
	mb := int64(1 << 20)
	// The counter at each tick: still, a burst, a slow tail, quiet, a
	// second burst, then the end of the sequence.
	seq := []int64{0, 0, 0, 8 * mb, 16 * mb, 17 * mb}
	for range ioQuiet {
		seq = append(seq, 17*mb)
	}
	seq = append(seq, 30*mb, 30*mb)
	var sets []bool
	i := 0
	read := func() (int64, bool) {
		if i >= len(seq) {
			return 0, false
		}
		v := seq[i]
		i++
		return v, true
	}
	boost := func(on bool) { sets = append(sets, on) }
	done := make(chan struct{})
	go func() {
		ioBooster(context.Background(), time.Millisecond, 2*time.Millisecond, read, boost)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the booster did not end when its counter did")
	}
	if want := []bool{true, false, true}; !slices.Equal(sets, want) {
		t.Errorf("boosts %v; want %v", sets, want)
	}
}

// TestBoostIOLeavesSetting: GOMAXPROCS in the environment is the
// user's; without it the booster runs where /proc/self/io is readable.
func TestBoostIOLeavesSetting(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t.Setenv("GOMAXPROCS", "3")
	if BoostIO(ctx) {
		t.Error("BoostIO started with GOMAXPROCS set")
	}
	t.Setenv("GOMAXPROCS", "")
	if !BoostIO(ctx) {
		t.Error("BoostIO did not start without GOMAXPROCS set")
	}
}
