package cli

import (
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback/cmd/turnback/termout"
)

// pagedCommands print what may be long: on a terminal their output goes
// through the user's pager.
var pagedCommands = map[string]bool{"diff": true, "log": true, "show": true}

// startPager sends g.stdout through the pager ($TURNBACK_PAGER, else
// $PAGER, else less; LESS=FRX unless LESS is set, so that output that
// fits the screen is just printed) when args run diff, log or show with
// stdout a terminal, without --json, in this process (a daemon's
// client pages, not the daemon). It returns what waits for the pager to
// finish; without a pager, nothing.
func (g *globals) startPager(root *cobra.Command, args []string) func() {
	none := func() {}
	if !g.outTTY || g.own != "" || termout.WantsJSON(args) {
		return none
	}
	if c, _, err := root.Find(args); err != nil || !pagedCommands[c.Name()] {
		return none
	}
	pager, ok := "less", false
	for _, v := range []string{"TURNBACK_PAGER", "PAGER"} {
		if p, set := lookupEnv(g.getenv, v); set {
			pager, ok = p, true
			break
		}
	}
	if pager == "" || pager == "cat" || !ok && !hasProgram("less") {
		return none
	}
	cmd := exec.Command("sh", "-c", pager)
	cmd.Env = os.Environ()
	if _, set := lookupEnv(g.getenv, "LESS"); !set {
		cmd.Env = append(cmd.Env, "LESS=FRX")
	}
	cmd.Stdout, cmd.Stderr = g.stdout, g.stderr
	in, err := cmd.StdinPipe()
	if err != nil || cmd.Start() != nil {
		return none
	}
	out := g.stdout
	g.stdout = in
	return func() {
		in.Close()
		_ = cmd.Wait() // a pager quit early is no failure of the command
		g.stdout = out
	}
}

// lookupEnv is getenv's value of v and whether it is set (not empty).
func lookupEnv(getenv func(string) string, v string) (string, bool) {
	s := getenv(v)
	return s, s != ""
}

// hasProgram reports whether name is on PATH.
func hasProgram(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}
