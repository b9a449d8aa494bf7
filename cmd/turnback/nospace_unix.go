//go:build unix

package main

import "syscall"

var errNoSpace error = syscall.ENOSPC
