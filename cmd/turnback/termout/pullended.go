package termout

import (
	"fmt"
	"strings"

	"github.com/turnback/turnback"
)

// PullEnded is the warning of a snap or end (op "started", "ended") of
// turn that ended a pull's pending apply p; cli starts the command that
// still brings the pulled turns in ("turnback" with -C and --session).
func PullEnded(p *turnback.PullEnded, turn int, op, cli string) string {
	what := pulledTurns(p.Turns) + " was"
	if len(p.Turns) > 1 {
		what = pulledTurns(p.Turns) + " were"
	}
	arg := p.Restore
	if !strings.HasPrefix(arg, "@") && len(arg) > 12 {
		arg = arg[:12]
	}
	return fmt.Sprintf("turnback: warning: session %s: %s pulled and never brought into the folder, and turn %d %s without it: "+
		"pull --apply no longer brings it in; %s restore %s still does (the whole folder becomes that state; what it holds goes into a checkpoint)",
		SafeText(p.Session), what, turn, op, cli, arg)
}

// pulledTurns names turns: "turn 3", "turns 2 to 4", "turns 2, 5".
func pulledTurns(nums []int) string {
	switch n := len(nums); {
	case n == 0:
		return "no turn"
	case n == 1:
		return fmt.Sprintf("turn %d", nums[0])
	case nums[n-1]-nums[0] == n-1:
		return fmt.Sprintf("turns %d to %d", nums[0], nums[n-1])
	}
	s := make([]string, len(nums))
	for i, t := range nums {
		s[i] = fmt.Sprint(t)
	}
	return "turns " + strings.Join(s, ", ")
}
