//go:build windows

package cli

import (
	"errors"
	"os"
	"os/exec"
)

// execFull runs turnback-full on args with this process's streams and
// returns its exit code: Windows cannot replace a process.
func execFull(full string, args []string) (int, error) {
	c := exec.Command(full, args...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := c.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	if err != nil {
		return 0, err
	}
	return 0, nil
}
