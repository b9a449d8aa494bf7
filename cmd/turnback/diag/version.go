package diag

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is the version line of this build: the version v it was
// given at build time, or else the module version, or "devel"; the VCS
// revision (marked -dirty for a modified tree), the platform and the Go
// release.
func Version(v string) string {
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
