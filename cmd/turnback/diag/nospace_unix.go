//go:build unix

package diag

import "syscall"

var errNoSpace error = syscall.ENOSPC
