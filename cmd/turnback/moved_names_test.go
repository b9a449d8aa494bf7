package main

import (
	"io"
	"net"

	"github.com/turnback/turnback/cmd/turnback/autowatch"
	"github.com/turnback/turnback/cmd/turnback/diag"
	"github.com/turnback/turnback/cmd/turnback/termout"
	"github.com/turnback/turnback/watch/daemon"
)

// The tests of this package that talk to a watch daemon directly use
// these short names for what package daemon provides.

type (
	daemonInfo = daemon.Info
	request    = daemon.Request
)

const wireVersion = daemon.Version

func ping(storeDir string) (*daemon.Info, bool)   { return daemon.Ping(storeDir) }
func socketPath(storeDir string) string           { return daemon.SocketPath(storeDir) }
func checkSocketDir(dir string) error             { return daemon.CheckSocketDir(dir) }
func dial(storeDir string) (net.Conn, bool)       { return daemon.Dial(storeDir) }
func sendRequest(w io.Writer, req request) error  { return daemon.SendRequest(w, req) }
func readFrame(r io.Reader) (byte, []byte, error) { return daemon.ReadFrame(r) }

// Output helpers, in package termout.

const (
	ansiReset  = termout.AnsiReset
	ansiRed    = termout.AnsiRed
	ansiGreen  = termout.AnsiGreen
	ansiYellow = termout.AnsiYellow
)

func quotePath(p string) string { return termout.QuotePath(p) }

// Automatic daemons, in package autowatch.

const (
	autoFailedName = autowatch.FailedName
	autoWatchRetry = autowatch.Retry
)

// The peak memory line, in package diag.
const peakRSSLine = diag.PeakRSSLine
