package daemon

import "testing"

// TestParseProcStat: the state and start time of /proc/PID/stat, also
// with a command name holding spaces and parentheses.
func TestParseProcStat(t *testing.T) {
	for _, tc := range []struct {
		stat  string
		state byte
		ticks uint64
		ok    bool
	}{
		{"1234 (turnback) S 1 1234 1234 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 8 0 98765 1000 200 18446744073709551615", 'S', 98765, true},
		{"1234 (a) b (c) Z 1 1234 1234 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 8 0 42 1000", 'Z', 42, true},
		{"1234 (turnback) S 1 2 3", 0, 0, false},
		{"no parenthesis", 0, 0, false},
		{"1 (x) SS 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7 0", 0, 0, false},
		{"1 (x) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 notanumber 0", 'R', 0, false},
	} {
		state, ticks, ok := ParseProcStat([]byte(tc.stat))
		if ok != tc.ok || (ok && (state != tc.state || ticks != tc.ticks)) {
			t.Errorf("ParseProcStat(%q) = %q, %d, %v; want %q, %d, %v", tc.stat, state, ticks, ok, tc.state, tc.ticks, tc.ok)
		}
	}
	if procRSS([]byte("VmRSS:\t   40960 kB\n")) != 40960<<10 || procRSS([]byte("VmPeak: 1 kB\n")) != 0 {
		t.Error("procRSS")
	}
}

// FuzzParseProcStat: whatever /proc/PID/stat holds, no panic.
func FuzzParseProcStat(f *testing.F) {
	f.Add([]byte("1234 (turnback) S 1 1234 1234 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 8 0 98765 1000"))
	f.Add([]byte(")"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ParseProcStat(b)
		procRSS(b)
	})
}
