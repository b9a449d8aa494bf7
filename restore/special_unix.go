//go:build unix

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

// linkStaged makes staged file to a hard link of the staged file from
// (linkat on the two directory handles, never following a symlink).
func linkStaged(d *dirs, from, to string) error {
	fr, fname, err := d.leaf(from)
	if err != nil {
		return err
	}
	tr, tname, err := d.leaf(to)
	if err != nil {
		return err
	}
	ff, err := fr.Open(".")
	if err != nil {
		return err
	}
	defer ff.Close()
	tf, err := tr.Open(".")
	if err != nil {
		return err
	}
	defer tf.Close()
	if err := unix.Linkat(int(ff.Fd()), fname, int(tf.Fd()), tname, 0); err != nil {
		return &os.LinkError{Op: "linkat", Old: from, New: to, Err: err}
	}
	return nil
}
