//go:build !unix

package diag

import "errors"

var errNoSpace = errors.New("no space left on device")
