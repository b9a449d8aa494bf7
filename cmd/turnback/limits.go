package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/turnback/turnback"
)

// parseSize reads a byte count with an optional K, M or G suffix (powers
// of 1024), e.g. "10M".
func parseSize(s string) (int64, error) {
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

// limitsFromEnv applies TURNBACK_SIZE_LIMIT and TURNBACK_LARGE_DIR_FILES.
func limitsFromEnv(getenv func(string) string, o *turnback.Options) error {
	if v := getenv("TURNBACK_SIZE_LIMIT"); v != "" {
		n, err := parseSize(v)
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
		d, err := parseDuration(v)
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
