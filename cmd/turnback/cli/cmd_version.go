package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/turnback/turnback/cmd/turnback/diag"
)

// version is set at build time with -ldflags
// "-X github.com/turnback/turnback/cmd/turnback/cli.version=v1.2.3";
// otherwise the module version or VCS revision is shown.
var version = ""

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print turnback's version",
		RunE: func(cmd *cobra.Command, args []string) error {
			v := versionString()
			return g.print(map[string]string{"version": v}, func() { fmt.Fprintln(g.stdout, v) })
		},
	}
}

// versionString is the version turnback prints.
func versionString() string { return diag.Version(version) }
