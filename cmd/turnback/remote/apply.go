package remote

// What a pull tells, and pull --apply: the folder is not changed by a
// pull; the pulled turns the folder lacks are said, with the commands
// that bring them in (turnback.Repo.ApplyPulled).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/diag"
	"github.com/turnback/turnback/cmd/turnback/termout"
	s3remote "github.com/turnback/turnback/internal/remote"
)

// applyRequest is a pull --apply the daemon runs.
type applyRequest struct {
	Session string `json:"session"`
	Force   bool   `json:"force,omitempty"`
}

func init() { register("pull-apply", applyHere) }

func applyHere(ctx context.Context, r *turnback.Repo, req applyRequest) (*turnback.RestoreResult, error) {
	return r.ApplyPulled(ctx, req.Session, req.Force)
}

// nextCommand is how the commands pull suggests start: "turnback", with
// --session when a command given none would pick another session.
func (e *Env) nextCommand(ctx context.Context, repo *turnback.Repo, session string) (string, error) {
	s, err := repo.LatestSession(ctx)
	if err != nil && !isAmbiguous(err) {
		return "", err
	}
	if err == nil && s.Name == session {
		return "turnback", nil
	}
	list, err := repo.Sessions(ctx)
	if err != nil {
		return "", err
	}
	short := session
	for _, s := range list {
		if s.Name == session {
			short = s.Short
		}
	}
	return "turnback --session " + termout.ShellQuote(short), nil
}

// pulledText is pull's human report: what it brought and, when the
// folder lacks it, the commands that bring it in. With color, the
// session's name and the turns' numbers are in their colours.
func pulledText(res *s3remote.PullResult, next string, applying, color bool) string {
	session := termout.Paint(color, termout.SessionColor, termout.SafeText(res.Session))
	var b strings.Builder
	switch p := res.Pending; {
	case res.NothingNew:
		fmt.Fprintf(&b, "nothing to pull: session %s here holds everything the remote's does; kept as it is\n", session)
	case p != nil:
		fmt.Fprintf(&b, "pulled %s: %s, %d objects, %s received\n", session, turnsText(p.Turns, color),
			res.Objects, termout.HumanBytes(res.BytesReceived))
	default:
		fmt.Fprintf(&b, "pulled %s: %d turn%s, %d objects, %s received\n", session, res.Turns,
			termout.Plural(res.Turns), res.Objects, termout.HumanBytes(res.BytesReceived))
	}
	if p := res.Pending; p != nil && !applying {
		writeNext(&b, p, next, color)
	}
	return b.String()
}

// writeNext says that the folder lacks the pulled turns and how to
// bring them in.
func writeNext(w io.Writer, p *s3remote.Pending, next string, color bool) {
	fmt.Fprintf(w, "the folder is unchanged: it lacks %s (status and diff show only the edits made in it); next:\n", turnsText(p.Turns, color))
	apply, restore := next+" pull --apply", next+" restore "+restoreArg(p)
	width := max(len(apply), len(restore))
	fmt.Fprintf(w, "  %-*s   bring in what they changed; edits made in the folder stay (exit 3 if one is in the way)\n", width, apply)
	fmt.Fprintf(w, "  %-*s   make the folder exactly the session's last state (what it holds goes into a checkpoint)\n", width, restore)
}

// restoreArg names the session's last state for restore: @N when it is
// turn N's after-state.
func restoreArg(p *s3remote.Pending) string {
	if p.AtNewest {
		return fmt.Sprintf("@%d", p.Newest)
	}
	return p.State[:12]
}

// turnsText names turns: "turn 3", "turns 2 to 4", "turns 2, 5"; with
// color, the numbers in TurnColor.
func turnsText(nums []int, color bool) string {
	num := func(n int) string { return termout.Paint(color, termout.TurnColor, fmt.Sprint(n)) }
	switch n := len(nums); {
	case n == 0:
		return "no turn"
	case n == 1:
		return "turn " + num(nums[0])
	case nums[n-1]-nums[0] == n-1:
		return "turns " + num(nums[0]) + " to " + num(nums[n-1])
	}
	s := make([]string, len(nums))
	for i, t := range nums {
		s[i] = num(t)
	}
	return "turns " + strings.Join(s, ", ")
}

// applyPulled is pull --apply once the pull is done: the folder gets
// what the pulled turns changed, or, when an edit made in it is in the
// way, nothing (exit 3, as restore's and undo's conflicts).
func (e *Env) applyPulled(ctx context.Context, repo *turnback.Repo, res *s3remote.PullResult, next string) error {
	force := e.Force != nil && e.Force()
	diag.InstallFaults(repo, e.Getenv, e.Stderr) // the tests' crashes and faults
	out, err := onStore(ctx, repo, "pull-apply", applyRequest{Session: res.Session, Force: force}, applyHere)
	var ce *turnback.ConflictError
	if asConflict(err, &ce) {
		n := len(ce.Result.Conflicts)
		msg := fmt.Sprintf("turnback: conflict: pull --apply changed nothing in the folder: %d path%s the pulled turns changed %s edited in it",
			n, termout.Plural(n), map[bool]string{true: "was", false: "were"}[n == 1])
		if e.json() {
			return e.Exit(3, errors.New(msg), map[string]any{"pull": res, "apply": termout.RestoreDoc(ce.Result)})
		}
		fmt.Fprint(e.Stdout, pulledText(res, next, true, e.color()))
		fmt.Fprintln(e.Stderr, strings.Replace(msg, "conflict", termout.Paint(e.colorErr(), termout.ConflictColor, "conflict"), 1)+":")
		for _, c := range ce.Result.Conflicts {
			fmt.Fprintf(e.Stderr, "  %s: %s\n", termout.QuotePath(c.Path), termout.SafeText(c.Reason))
		}
		fmt.Fprintf(e.Stderr, "The pulled turns are in the store. Keep the edits, or run one of:\n")
		force, restore := next+" --force pull --apply", next+" restore "+restoreArg(res.Pending)
		width := max(len(force), len(restore))
		fmt.Fprintf(e.Stderr, "  %-*s   apply anyway: the edits stay in a checkpoint (turnback checkpoints lists it)\n", width, force)
		fmt.Fprintf(e.Stderr, "  %-*s   make the folder exactly the session's last state: the edits stay in a checkpoint\n", width, restore)
		return e.Exit(3, err, nil)
	}
	if err != nil {
		return err
	}
	doc := map[string]any{"pull": res, "apply": termout.RestoreDoc(out)}
	var incomplete error
	if out.Incomplete() { // exit 5, as restore
		incomplete = e.Exit(5, errors.New(termout.Incomplete(out)), doc)
	}
	if e.json() {
		if incomplete != nil {
			return incomplete // the error's document says it all
		}
		termout.WriteJSON(e.Stdout, doc)
		return nil
	}
	fmt.Fprint(e.Stdout, pulledText(res, next, true, e.color()))
	termout.RestoreListColor(e.Stdout, "applied", out, false, e.color())
	return incomplete
}

func isAmbiguous(err error) bool { return errors.As(err, new(*turnback.AmbiguousSessionError)) }

func asConflict(err error, ce **turnback.ConflictError) bool { return errors.As(err, ce) }
