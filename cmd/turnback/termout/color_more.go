package termout

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"sync"
)

// The colours of what is named in several commands' reports: the same
// thing has the same colour in each.
const (
	// TurnColor is a turn's number: log, log --all, show, pull.
	TurnColor = AnsiCyan
	// SessionColor is a session's name: sessions, remote sessions,
	// checkpoints, log, log --all, show, pull.
	SessionColor = AnsiBold
	// WarnColor is the word "warning" of a "turnback: warning:" line.
	WarnColor = AnsiYellow
)

// warnPrefix begins every warning line the commands write on stderr.
const warnPrefix = "turnback: warning:"

// WarnColorWriter writes to w what it is given, with the word "warning"
// of each line that begins "turnback: warning:" in WarnColor while on
// reports true. A warning is written in one Write, as fmt.Fprintf does.
func WarnColorWriter(w io.Writer, on func() bool) io.Writer {
	return &warnWriter{w: w, on: on, bol: true}
}

type warnWriter struct {
	mu  sync.Mutex // the progress line writes from its own goroutine
	w   io.Writer
	on  func() bool
	bol bool // the next byte begins a line
}

// atLineStart reports whether what follows p begins a line: p ends a
// line, or returns to its start (as the progress line does, and its
// "\r\033[K" that clears it).
func atLineStart(p []byte) bool {
	p = bytes.TrimSuffix(p, []byte("\033[K"))
	return len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r')
}

func (ww *warnWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	ww.mu.Lock()
	defer ww.mu.Unlock()
	if !ww.on() || !bytes.Contains(p, []byte(warnPrefix)) {
		ww.bol = atLineStart(p)
		return ww.w.Write(p)
	}
	var b bytes.Buffer
	bol := ww.bol
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if bol && bytes.HasPrefix(line, []byte(warnPrefix)) {
			b.WriteString("turnback: " + WarnColor + "warning" + AnsiReset + ":")
			line = line[len(warnPrefix):]
		}
		b.Write(line)
		bol = atLineStart(line)
	}
	ww.bol = bol
	if _, err := ww.w.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// colorsIf is colors when color is true, else none.
func colorsIf(color bool, colors map[int]string) map[int]string {
	if !color {
		return nil
	}
	return colors
}

// turnNum is turn n's number right-aligned in width, the digits in
// TurnColor when color is true.
func turnNum(color bool, n, width int) string {
	s := strconv.Itoa(n)
	return strings.Repeat(" ", max(0, width-len(s))) + Paint(color, TurnColor, s)
}
