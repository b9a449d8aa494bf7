package envopt

import (
	"testing"
	"time"

	"github.com/turnback/turnback"
)

// TestParse: sizes with K, M, G (powers of 1024) and durations with a
// "d" suffix besides Go's; bad values are refused.
func TestParse(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "12": 12, "10M": 10 << 20, "2k": 2 << 10, "1G": 1 << 30, "3MiB": 3 << 20, " 5KB ": 5 << 10} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "-1", "1T", "99999999999G"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q): no error", in)
		}
	}
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "1.5d": 36 * time.Hour, "90m": 90 * time.Minute, "72h": 72 * time.Hour} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1h", "d", "3 d"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q): no error", in)
		}
	}
}

// TestApply: each variable lands in its option; "0" means no limit or
// no wait; a bad value names its variable.
func TestApply(t *testing.T) {
	env := map[string]string{"TURNBACK_SIZE_LIMIT": "0", "TURNBACK_LARGE_DIR_FILES": "50", "TURNBACK_KEEP_TURNS": "7",
		"TURNBACK_KEEP_AGE": "2d", "TURNBACK_LOCK_WAIT": "0"}
	var o turnback.Options
	if err := Apply(func(k string) string { return env[k] }, &o); err != nil {
		t.Fatal(err)
	}
	if o.SizeLimit != -1 || o.LargeDirFiles != 50 || o.KeepTurns != 7 || o.KeepAge != 48*time.Hour || o.LockWait != -1 {
		t.Errorf("options %+v", o)
	}
	env["TURNBACK_LOCK_WAIT"] = "soon"
	if err := Apply(func(k string) string { return env[k] }, &o); err == nil || err.Error() != `TURNBACK_LOCK_WAIT: bad duration "soon": want e.g. 300ms, 10s or 0` {
		t.Errorf("bad TURNBACK_LOCK_WAIT: %v", err)
	}
}

// TestClock: TURNBACK_TEST_NOW pins Options.Now and Now; a bad time is
// refused; without it both are the clock's.
func TestClock(t *testing.T) {
	env := map[string]string{"TURNBACK_TEST_NOW": "2026-11-22T10:14:02Z"}
	getenv := func(k string) string { return env[k] }
	want := time.Date(2026, 11, 22, 10, 14, 2, 0, time.UTC)
	var o turnback.Options
	if err := Apply(getenv, &o); err != nil || o.Now == nil || !o.Now().Equal(want) || !Now(getenv).Equal(want) {
		t.Errorf("pinned clock: %v, %v", err, Now(getenv))
	}
	env["TURNBACK_TEST_NOW"] = "10:14"
	if err := Apply(getenv, &turnback.Options{}); err == nil {
		t.Error("a bad TURNBACK_TEST_NOW was accepted")
	}
	delete(env, "TURNBACK_TEST_NOW")
	o = turnback.Options{}
	if err := Apply(getenv, &o); err != nil || o.Now != nil || time.Since(Now(getenv)) > time.Minute {
		t.Errorf("unpinned clock: %v, Now set: %t", err, o.Now != nil)
	}
}
