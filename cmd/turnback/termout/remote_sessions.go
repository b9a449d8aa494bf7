package termout

import (
	"fmt"
	"io"
	"time"

	"github.com/turnback/turnback"
)

// RemoteSessionJSON is one session of a remote in remote sessions
// --json: a session's fields, its newest head and the bytes of the
// packs that head names.
type RemoteSessionJSON struct {
	SessionJSON
	Head  string `json:"head"`
	Bytes int64  `json:"bytes"`
}

// RemoteSessionsDoc is the --json document of remote sessions; heads
// and bytes go with list, index for index.
func RemoteSessionsDoc(url string, list []turnback.SessionInfo, heads []string, bytes []int64) map[string]any {
	out := []RemoteSessionJSON{}
	for i, d := range SessionDocs(list) {
		out = append(out, RemoteSessionJSON{SessionJSON: d, Head: heads[i], Bytes: bytes[i]})
	}
	return map[string]any{"remote": url, "sessions": out}
}

// RemoteSessions writes what remote sessions prints for people: a
// table, times in loc, "-" for what a session lacks.
func RemoteSessions(w io.Writer, url string, list []turnback.SessionInfo, bytes []int64, loc *time.Location) {
	RemoteSessionsColor(w, url, list, bytes, loc, false)
}

// RemoteSessionsColor is RemoteSessions with, when color is true, the
// names in SessionColor.
func RemoteSessionsColor(w io.Writer, url string, list []turnback.SessionInfo, bytes []int64, loc *time.Location, color bool) {
	if len(list) == 0 {
		fmt.Fprintf(w, "no sessions on %s\n", SafeText(url))
		return
	}
	rows := [][]string{{"SESSION", "AGENT", "TURNS", "LAST TURN", "SIZE"}}
	for i, s := range list {
		rows = append(rows, []string{QuotePath(s.Short), orDash(SafeText(s.Agent)), fmt.Sprint(s.Turns),
			orDash(stamp(s.LastTurn, loc)), HumanBytes(bytes[i])})
	}
	tableColor(w, rows, colorsIf(color, map[int]string{0: SessionColor}), 2, 4)
}
