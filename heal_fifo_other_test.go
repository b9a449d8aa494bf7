//go:build !unix

package turnback

import "errors"

// mkfifo: no FIFOs here.
func mkfifo(string) error { return errors.New("no FIFOs on this system") }
