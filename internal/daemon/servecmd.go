package daemon

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
)

// NewServeCmd is the serve command: the daemon in this process (as watch
// runs it: run), with the HTTP API on loopback TCP too (--listen), or
// the bearer token (--print-token). locate finds the folder and its
// store, out gives stdout, --json and --force as the command line set
// them.
func NewServeCmd(locate func() (workTree, storeDir string, err error),
	run func(cmd *cobra.Command, workTree, storeDir string, idle time.Duration, listen string) error,
	out func() (stdout io.Writer, asJSON, force bool)) *cobra.Command {
	var listen string
	var printToken bool
	var idle time.Duration
	cmd := &cobra.Command{
		Use:   "serve [--listen 127.0.0.1:PORT] [--idle-timeout DUR] | serve --print-token",
		Short: "Run the daemon in the foreground, serving the HTTP/JSON API on its socket (and loopback TCP)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			workTree, storeDir, err := locate()
			if err == nil && storeDir == "" {
				_, err = os.Stat(workTree)
				err = fmt.Errorf("turnback: work tree: %w", err)
			}
			if err != nil || printToken {
				w, asJSON, force := out()
				return errors.Join(err, PrintToken(w, workTree, storeDir, force, printToken && err == nil, asJSON))
			}
			return run(cmd, workTree, storeDir, idle, listen)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "serve the API on loopback TCP too, e.g. `127.0.0.1:7077`; requests carry the bearer token")
	cmd.Flags().BoolVar(&printToken, "print-token", false, "print the bearer token of --listen (made, 0600 in the store, if there is none)")
	cmd.Flags().DurationVar(&idle, "idle-timeout", 0, "stop after this long without a request, e.g. 8h (default: never)")
	return cmd
}
