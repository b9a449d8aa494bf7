package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback/cmd/turnback/termout"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise the module version or VCS revision is shown.
var version = ""

func versionString() string {
	v := version
	rev, dirty := "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " " + rev
		if dirty {
			v += "-dirty"
		}
	}
	return fmt.Sprintf("turnback %s %s/%s %s", v, runtime.GOOS, runtime.GOARCH, runtime.Version())
}

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print turnback's version",
		Example: `  turnback version`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if g.json {
				termout.WriteJSON(g.stdout, map[string]string{"version": versionString()})
				return nil
			}
			fmt.Fprintln(g.stdout, versionString())
			return nil
		},
	}
}
