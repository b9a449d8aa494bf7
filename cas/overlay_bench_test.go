package cas

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkDeferredCommit: one command that records about what a
// no-change snap records (a 700-byte frame) in a deferred store: open,
// write, close. "folds" folds the log every overlayMaxFrames frames (as
// turnback does), "log-only" only at overlayMax (as before the bound).
// The difference per op is what the bound costs each command on
// average.
func BenchmarkDeferredCommit(b *testing.B) {
	if !canLockDir {
		b.Skip("no deferred opens here")
	}
	for _, c := range []struct {
		name   string
		frames int
	}{{"folds", overlayMaxFrames}, {"log-only", 1 << 30}} {
		b.Run(c.name, func(b *testing.B) {
			defer func(f int, a time.Duration) { overlayMaxFrames, overlayMaxAge = f, a }(overlayMaxFrames, overlayMaxAge)
			overlayMaxFrames, overlayMaxAge = c.frames, 24*time.Hour
			dir := b.TempDir()
			ctx := b.Context()
			w, err := OpenBadger(ctx, dir, BadgerOptions{})
			if err != nil {
				b.Fatal(err)
			}
			for i := range 20000 { // a store with some history
				if err := w.Set(ctx, Entry{Key: []byte(fmt.Sprintf("s/dir%06d", i)), Value: make([]byte, 100)}); err != nil {
					b.Fatal(err)
				}
			}
			w.Close()
			value := make([]byte, 700)
			b.ResetTimer()
			for i := range b.N {
				d, err := OpenBadger(ctx, dir, BadgerOptions{Deferred: true})
				if err != nil {
					b.Fatal(err)
				}
				if err := d.Set(ctx, Entry{Key: []byte(fmt.Sprintf("m/snap/%d", i%50)), Value: value}); err != nil {
					b.Fatal(err)
				}
				if err := d.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
