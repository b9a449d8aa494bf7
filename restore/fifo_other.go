//go:build !linux

package restore

import (
	"errors"
	"fmt"

	"github.com/turnback/turnback/manifest"
)

// errNoFIFO: fifos are made relative to a directory handle (mkfifoat),
// which this system's Go support lacks; a path-based mkfifo could follow
// a directory swapped for a symlink.
var errNoFIFO = errors.New("restoring a fifo is supported on Linux only")

func stageFIFO(d *dirs, stage, path string, e *manifest.Entry) error {
	return fmt.Errorf("make fifo %s: %w", path, errNoFIFO)
}
