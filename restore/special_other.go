//go:build !unix

package restore

import (
	"errors"
	"fmt"

	"github.com/turnback/turnback/manifest"
)

var errNoSpecial = errors.New("not supported on this system")

func stageFIFO(d *dirs, stage, path string, e *manifest.Entry) error {
	return fmt.Errorf("make fifo %s: %w", path, errNoSpecial)
}

func linkStaged(d *dirs, from, to string) error { return errNoSpecial }
