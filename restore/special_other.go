//go:build !unix

package restore

import "errors"

var errNoSpecial = errors.New("not supported on this system")

func linkStaged(d *dirs, from, to string) error { return errNoSpecial }
