package daemons

import (
	"io"

	"github.com/spf13/pflag"
)

// cmdline are the flags of a daemon's command line that matter here.
type cmdline struct {
	dir, store string
	daemon     bool // "watch" serving, not a client (--stop, --list...)
}

func parseArgs(args []string) cmdline {
	var a cmdline
	fs := pflag.NewFlagSet("turnback", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.StringVarP(&a.dir, "dir", "C", "", "")
	fs.StringVar(&a.store, "store", "", "")
	fs.String("session", "", "")
	fs.Bool("json", false, "")
	fs.Bool("force", false, "")
	var client [5]bool
	for i, name := range []string{"detach", "stop", "status", "list", "stop-all"} {
		fs.BoolVar(&client[i], name, false, "")
	}
	fs.Duration("idle-timeout", 0, "")
	fs.Int("queue-size", 0, "")
	fs.Bool("auto", false, "")
	fs.String("under", "", "")
	fs.String("listen", "", "")
	var printToken bool
	fs.BoolVar(&printToken, "print-token", false, "")
	fs.BoolP("help", "h", false, "")
	if fs.Parse(args) != nil || fs.NArg() != 1 || fs.Arg(0) != "watch" && fs.Arg(0) != "serve" {
		return cmdline{}
	}
	a.daemon = client == [5]bool{} && !printToken
	if h, _ := fs.GetBool("help"); h {
		a.daemon = false
	}
	return a
}

func isDaemon(args []string) bool { return parseArgs(args).daemon }
