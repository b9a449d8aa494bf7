package cli

// gc racing other commands on the same store, each its own process.

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/internal/testtier"
)

// TestGCKeepsWriteOfCommandThatWaited runs "gc --keep 1" and, while it
// holds the store, an "end" that waits for it, for several rounds. gc
// closes and reopens the database to give space back; a waiting command
// can take the store in between and record its turn in the overlay log.
// The reopened gc must not then delete the pack that turn's content went
// to: after each round verify passes and the newest turn undoes.
func TestGCKeepsWriteOfCommandThatWaited(t *testing.T) {
	t.Parallel()
	rounds := 8
	if testtier.Short() {
		rounds = 5
	}
	e := newCLI(t, "work")
	e.write("README", "race\n")
	for i := range rounds {
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

// TestGCRacesEveryCommand runs gc in the background while snap, end,
// undo and redo run in a random order, each its own process, for many
// rounds (more in the slow tier). Every command and every gc must
// succeed, undo and redo must leave exactly the folder expected, and at
// the end verify passes and every turn left undoes byte for byte.
func TestGCRacesEveryCommand(t *testing.T) {
	t.Parallel()
	rounds := 30
	if testtier.Short() {
		rounds = 10
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	e := newCLI(t, "work")
	e.write("README", "race\n")
	var done, redo []map[string][]byte // the folder before each turn; the folder each undo replaced
	// raced runs the command args while a gc runs, started a random
	// 0-40 ms before it.
	raced := func(round int, args ...string) cliResult {
		gc := e.start("gc", "--keep", "1000")
		time.Sleep(time.Duration(rng.IntN(40)) * time.Millisecond)
		r := e.run(args...)
		if g := gc.wait(); g.code != 0 {
			t.Fatalf("round %d (seed %d): %v", round, seed, g)
		}
		if r.code != 0 {
			t.Fatalf("round %d (seed %d): %v", round, seed, r)
		}
		return r
	}
	for i := range rounds {
		switch op := rng.IntN(4); {
		case op <= 1 || len(done) == 0 && len(redo) == 0:
			before := gcFolder(t, e)
			raced(i, "snap", "-m", fmt.Sprintf("r%d", i))
			// Changes of every kind: a new small file, a big file rewritten
			// (pack values), a file removed.
			e.writeBytes(fmt.Sprintf("f%d.bin", i), gcRandom(rng.Uint64(), 1+rng.IntN(300<<10)))
			e.writeBytes("big.bin", gcRandom(rng.Uint64(), 1<<20+rng.IntN(1<<20)))
			if old := fmt.Sprintf("f%d.bin", rng.IntN(i+1)); i > 0 && rng.IntN(3) == 0 {
				if _, ok := before[old]; ok {
					e.remove(old)
				}
			}
			raced(i, "end")
			done, redo = append(done, before), nil
		case op == 2 && len(done) > 0 || len(redo) == 0:
			now := gcFolder(t, e)
			raced(i, "undo")
			want := done[len(done)-1]
			done, redo = done[:len(done)-1], append(redo, now)
			if got := gcFolder(t, e); !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d (seed %d): undo did not bring back the folder before the turn", i, seed)
			}
		case len(redo) > 0:
			now := gcFolder(t, e)
			raced(i, "redo")
			want := redo[len(redo)-1]
			done, redo = append(done, now), redo[:len(redo)-1]
			if got := gcFolder(t, e); !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d (seed %d): redo did not bring back the folder the undo replaced", i, seed)
			}
		}
	}
	e.ok("verify")
	for n := len(done) - 1; n >= 0; n-- {
		e.ok("undo")
		if got := gcFolder(t, e); !reflect.DeepEqual(got, done[n]) {
			t.Fatalf("(seed %d) undoing turn %d of %d did not bring back the folder before it", seed, n+1, len(done))
		}
	}
	e.ok("verify")
}
