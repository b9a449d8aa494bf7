//go:build !unix

package cli

import (
	"errors"
	"os"
)

// childMaxRSS: no rusage here.
func childMaxRSS(*os.ProcessState) int64 { return 0 }

// setTestUmask: no umask here.
func setTestUmask() {}

func mkfifo(string) error { return errors.New("named pipes need a Unix system") }
