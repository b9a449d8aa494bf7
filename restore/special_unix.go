//go:build unix

package restore

import (
	"os"

	"golang.org/x/sys/unix"
)

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
