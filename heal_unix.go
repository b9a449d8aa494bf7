//go:build unix

package turnback

import "syscall"

// openNoBlock: opening a FIFO returns at once instead of waiting for a
// writer; reads of a regular file ignore the flag.
const openNoBlock = syscall.O_NONBLOCK | syscall.O_NOCTTY
