//go:build linux

package turnback_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/turnback/turnback/internal/testtier"
)

// TestSettleRandomNothingLostWatched is TestSettleRandomNothingLost
// with a watcher: the recapture is incremental. Fast tier: 2
// sequences; slow: 30.
func TestSettleRandomNothingLostWatched(t *testing.T) {
	t.Parallel()
	seqs := 2
	if testtier.Enabled() {
		seqs = 30
	}
	seed := settleSeed()
	t.Logf("seed %d (SETTLE_SEED reruns it)", seed)
	for s := range seqs {
		rng := rand.New(rand.NewPCG(seed, uint64(s)))
		t.Run(fmt.Sprint(s), func(t *testing.T) { settleRandomSeq(t, rng, 24, true) })
	}
}
