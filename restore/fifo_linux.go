//go:build linux

package restore

import (
	"os"

	"github.com/turnback/turnback/manifest"
	"golang.org/x/sys/unix"
)

// stageFIFO makes a fifo at the staging name (mkfifoat on the directory
// handle), then gives it its owner and mode; it is renamed into place
// like a staged file.
func stageFIFO(d *dirs, stage, path string, e *manifest.Entry) error {
	r, name, err := d.leaf(stage)
	if err != nil {
		return err
	}
	df, err := r.Open(".")
	if err != nil {
		return err
	}
	err = unix.Mkfifoat(int(df.Fd()), name, 0o600)
	df.Close()
	if err != nil {
		return &os.PathError{Op: "mkfifo", Path: stage, Err: err}
	}
	return applyOwner(nameHandle{r, name}, d, path, e)
}
