package ref

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrNoClone: the filesystem cannot clone files (no reflink support), or
// the clone directory is on another filesystem than the file.
var ErrNoClone = errors.New("ref: filesystem cannot clone files")

// CloneFile makes a copy-on-write clone of src at dir/name (O(1) in time
// and space until either changes), through a temporary name so that
// dir/name is either absent or complete. The clone is fsynced. Cloning
// fails with an error wrapping ErrNoClone where the filesystem (or the
// platform) has no support; callers then keep the file unprotected.
func CloneFile(dir, name string, src *os.File) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("ref: clone directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-")
	if err != nil {
		return fmt.Errorf("ref: clone: %w", err)
	}
	err = cloneInto(tmp, src)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
