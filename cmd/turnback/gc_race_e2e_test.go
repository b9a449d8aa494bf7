package main

// gc racing other commands on the same store, each its own process.

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestGCKeepsWriteOfCommandThatWaited runs "gc --keep 1" and, while it
// holds the store, an "end" that waits for it, for several rounds. gc
// closes and reopens the database to give space back; a waiting command
// can take the store in between and record its turn in the overlay log.
// The reopened gc must not then delete the pack that turn's content went
// to: after each round verify passes and the newest turn undoes.
func TestGCKeepsWriteOfCommandThatWaited(t *testing.T) {
	e := newCLI(t, "work")
	e.write("README", "race\n")
	for i := range 8 {
		e.ok("snap", "-m", fmt.Sprintf("t%d", i))
		e.writeBytes(fmt.Sprintf("f%d.bin", i), gcRandom(uint64(100+i), 300<<10))
		e.writeBytes("big.bin", gcRandom(uint64(200+i), 2<<20))
		gc := e.start("gc", "--keep", "1")
		// Long enough for gc to hold the store, so that end waits.
		time.Sleep(time.Duration(10+10*(i%5)) * time.Millisecond)
		end := e.run("end")
		if r := gc.wait(); r.code != 0 {
			t.Fatalf("round %d: %v", i, r)
		}
		if end.code != 0 {
			t.Fatalf("round %d: %v", i, end)
		}
		if r := e.run("verify"); r.code != 0 {
			t.Fatalf("round %d: the turn that end recorded while gc ran lost its content (end waited: %v):\n%v",
				i, strings.Contains(end.stderr, "waiting"), r)
		}
	}
	e.ok("undo")
}
