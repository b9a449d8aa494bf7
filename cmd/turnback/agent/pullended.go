package agent

import "github.com/turnback/turnback"

// TellPull is Tell with pulled, the warning of a prompt hook's snap
// that ended a pull's pending apply ("" none): the model is told it
// after the notice, and the user sees it as the hook's message. Other
// events print only what Tell does (the warning went to stderr).
func (a *Agent) TellPull(ev Event, notice *turnback.Notice, pulled string, getenv func(string) string) []byte {
	if pulled == "" || ev.Action != Snap {
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
