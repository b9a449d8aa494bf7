package cli

// useColorErr is useColor for what a command writes on stderr (its
// conflict report): stderr is a terminal, no --json, NO_COLOR unset and
// TERM not "dumb".
func (g *globals) useColorErr() bool {
	if g.json || g.getenv("NO_COLOR") != "" || g.getenv("TERM") == "dumb" {
		return false
	}
	return g.errTTY && g.own == ""
}
