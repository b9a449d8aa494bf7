package termout

import (
	"fmt"
	"strings"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/internal/model"
)

// PullEnded is the warning of a snap or end (op "started", "ended") of
// turn that ended a pull's pending apply p; cli starts the command that
// still brings the pulled turns in ("turnback" with -C and --session).
func PullEnded(p *turnback.PullEnded, turn int, op, cli string) string {
	what := model.TurnsText(p.Turns) + " was"
	if len(p.Turns) > 1 {
		what = model.TurnsText(p.Turns) + " were"
	}
	arg := p.Restore
	if !strings.HasPrefix(arg, "@") && len(arg) > 12 {
		arg = arg[:12]
	}
	return fmt.Sprintf("turnback: warning: session %s: %s pulled and never brought into the folder, and turn %d %s without it: "+
		"pull --apply no longer brings it in; %s restore %s still does (the whole folder becomes that state; what it holds goes into a checkpoint)",
		SafeText(p.Session), what, turn, op, cli, arg)
}
