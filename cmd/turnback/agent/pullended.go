package agent

import "github.com/turnback/turnback"

// TellPull is Tell with pulled, the warning of a snap that ended a
// pull's pending apply ("" none): the model is told it after the
// notice, and the user sees it as the hook's message.
func (a *Agent) TellPull(ev Event, notice *turnback.Notice, pulled string, getenv func(string) string) []byte {
	if pulled == "" {
		return a.Tell(ev, notice, getenv)
	}
	text := NoticeText(notice)
	if text != "" {
		text += "\n"
	}
	if !a.Context || !TellModel(getenv) {
		return nil
	}
	return output(ev.Name, text+pulled, pulled)
}
