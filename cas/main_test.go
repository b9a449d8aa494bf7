package cas

import (
	"os"
	"testing"

	"github.com/turnback/turnback/internal/testhook"
)

// TestMain opens the tests' stores with 1 MiB tables, not 4 MiB: a
// flush or compaction zeroes a buffer of twice that size first.
func TestMain(m *testing.M) {
	testhook.BadgerTableSize = 1 << 20
	os.Exit(m.Run())
}
