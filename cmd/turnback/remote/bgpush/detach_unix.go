//go:build unix

package bgpush

import "syscall"

// detached makes the push a session of its own: no terminal, no signal
// sent to the agent's or the shell's process group.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
