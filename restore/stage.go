package restore

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
)

func stageFile(ctx context.Context, d *dirs, stage string, e *manifest.Entry, src Source) error {
	r, name, err := d.leaf(stage)
	if err != nil {
		return err
	}
	in, err := src.Open(ctx, e.Hash)
	if err != nil {
		return err
	}
	f, err := r.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, in)
	if err == nil && n != e.Size {
		err = fmt.Errorf("%w: content %s has %d bytes, the tree says %d", cas.ErrCorrupt, e.Hash.Short(), n, e.Size)
	}
	if err == nil {
		err = f.Chmod(fileMode(e.Mode))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
