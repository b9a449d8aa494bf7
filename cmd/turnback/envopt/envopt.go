package envopt

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/turnback/turnback"
)

// ParseSize reads a byte count with an optional K, M or G suffix (powers
// of 1024), e.g. "10M".
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B")
	mult := int64(1)
	switch {
	case strings.HasSuffix(t, "K"):
		mult, t = 1<<10, strings.TrimSuffix(t, "K")
	case strings.HasSuffix(t, "M"):
		mult, t = 1<<20, strings.TrimSuffix(t, "M")
	case strings.HasSuffix(t, "G"):
		mult, t = 1<<30, strings.TrimSuffix(t, "G")
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("bad size %q: want a number of bytes, optionally with K, M or G", s)
	}
	return n * mult, nil
}

// Limits applies TURNBACK_SIZE_LIMIT, TURNBACK_KEEP_TURNS,
// TURNBACK_KEEP_AGE and TURNBACK_LARGE_DIR_FILES to o.
func Limits(getenv func(string) string, o *turnback.Options) error {
	if v := getenv("TURNBACK_SIZE_LIMIT"); v != "" {
		n, err := ParseSize(v)
		if err != nil {
			return fmt.Errorf("TURNBACK_SIZE_LIMIT: %w", err)
		}
		if n == 0 {
			n = -1
		}
		o.SizeLimit = n
	}
	if v := getenv("TURNBACK_KEEP_TURNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("TURNBACK_KEEP_TURNS: bad count %q", v)
		}
		o.KeepTurns = n
	}
	if v := getenv("TURNBACK_KEEP_AGE"); v != "" {
		d, err := ParseDuration(v)
		if err != nil {
			return fmt.Errorf("TURNBACK_KEEP_AGE: %w", err)
		}
		o.KeepAge = d
	}
	if v := getenv("TURNBACK_LARGE_DIR_FILES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("TURNBACK_LARGE_DIR_FILES: bad count %q", v)
		}
		if n == 0 {
			n = -1
		}
		o.LargeDirFiles = n
	}
	return nil
}

// ParseDuration accepts Go durations plus a "d" (days) suffix.
func ParseDuration(s string) (time.Duration, error) {
	var days float64
	if n, err := fmt.Sscanf(s, "%gd", &days); err == nil && n == 1 && fmt.Sprintf("%gd", days) == s && days >= 0 {
		return time.Duration(days * 24 * float64(time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("bad duration %q: use e.g. 90m, 72h or 30d", s)
	}
	return d, nil
}

// Apply applies every variable of Limits, LockWait and Clock to o.
func Apply(getenv func(string) string, o *turnback.Options) error {
	if err := Limits(getenv, o); err != nil {
		return err
	}
	if err := Clock(getenv, o); err != nil {
		return err
	}
	return LockWait(getenv, o)
}

// testNow is the variable that stops the clock for tests (see Clock).
const testNow = "TURNBACK_TEST_NOW"

// Clock applies TURNBACK_TEST_NOW, an RFC 3339 time, to o: turns are
// stamped with it and the session choice measures from it. Tests set it
// to pin the times a command records and prints; it is not part of the
// contract.
func Clock(getenv func(string) string, o *turnback.Options) error {
	if v := getenv(testNow); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return fmt.Errorf("%s: bad time %q: want RFC 3339", testNow, v)
		}
		o.Now = func() time.Time { return t }
	}
	return nil
}

// Now is the time now for a command with environment getenv: the time
// TURNBACK_TEST_NOW pins, or the clock's.
func Now(getenv func(string) string) time.Time {
	if t, err := time.Parse(time.RFC3339, getenv(testNow)); err == nil {
		return t
	}
	return time.Now()
}

// LockWait applies TURNBACK_LOCK_WAIT, a Go duration ("0": fail at
// once), to o.
func LockWait(getenv func(string) string, o *turnback.Options) error {
	if v := getenv("TURNBACK_LOCK_WAIT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("TURNBACK_LOCK_WAIT: bad duration %q: want e.g. 300ms, 10s or 0", v)
		}
		if d == 0 {
			d = -1 // Options: negative means fail at once
		}
		o.LockWait = d
	}
	return nil
}

// Locate finds the work tree and store directory of a command started in
// wd (both absolute, the store "" when neither given nor derivable): dir
// (-C) and store (--store, else TURNBACK_STORE) as given; without dir,
// the nearest folder from wd up that has a store (see turnback.Locate);
// without a store, the default one of the work tree's real path.
func Locate(wd, dir, store string, getenv func(string) string) (workTree, storeDir string, err error) {
	if dir != "" {
		workTree = dir
		storeDir = store
		if storeDir == "" {
			storeDir = getenv("TURNBACK_STORE")
		}
	} else if workTree, storeDir, err = turnback.Locate(wd, store); err != nil {
		return "", "", err
	}
	if !filepath.IsAbs(workTree) {
		workTree = filepath.Join(wd, workTree)
	}
	if storeDir == "" {
		// The default store is named after the real path; a work tree
		// that does not resolve is left to Open to report.
		if real, err := filepath.EvalSymlinks(workTree); err == nil {
			if storeDir, err = turnback.DefaultStoreDir(real); err != nil {
				return "", "", err
			}
		}
	}
	if storeDir != "" {
		if !filepath.IsAbs(storeDir) {
			storeDir = filepath.Join(wd, storeDir)
		}
		storeDir = filepath.Clean(storeDir)
	}
	return filepath.Clean(workTree), storeDir, nil
}
