package termout

import (
	"strings"
)

// ANSI colours. The commands use them only when stdout is a terminal and
// NO_COLOR is unset (https://no-color.org).
const (
	AnsiReset  = "\033[0m"
	AnsiBold   = "\033[1m"
	AnsiRed    = "\033[31m"
	AnsiGreen  = "\033[32m"
	AnsiYellow = "\033[33m"
	AnsiCyan   = "\033[36m"
)

// Paint wraps s in color (and a reset) when on is true.
func Paint(on bool, color, s string) string {
	if !on || s == "" {
		return s
	}
	return color + s + AnsiReset
}

// MarkColor is the colour of a status mark (A, D, or another).
func MarkColor(mark string) string {
	switch mark {
	case "A":
		return AnsiGreen
	case "D":
		return AnsiRed
	}
	return AnsiYellow
}

// ConflictColor is the colour of a conflict, and of what a command
// overwrote or could not restore, in every command's report.
const ConflictColor = AnsiRed

// Mark is a change's mark (A, M, D, I) in its colour when color is true:
// the same in status, diff's summary and the lists of undo, redo and
// restore.
func Mark(color bool, mark string) string {
	return Paint(color, MarkColor(mark), mark)
}

// ColorDiff colours a unified diff line by line.
func ColorDiff(text string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "diff --turnback "), strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "+++ "),
			strings.HasPrefix(line, "old mode "), strings.HasPrefix(line, "new mode "), strings.HasPrefix(line, "new file mode "),
			strings.HasPrefix(line, "deleted file mode "):
			b.WriteString(Paint(true, AnsiBold, strings.TrimSuffix(line, "\n")) + suffixNL(line))
		case strings.HasPrefix(line, "@@"):
			b.WriteString(Paint(true, AnsiCyan, strings.TrimSuffix(line, "\n")) + suffixNL(line))
		case strings.HasPrefix(line, "+"):
			b.WriteString(Paint(true, AnsiGreen, strings.TrimSuffix(line, "\n")) + suffixNL(line))
		case strings.HasPrefix(line, "-"):
			b.WriteString(Paint(true, AnsiRed, strings.TrimSuffix(line, "\n")) + suffixNL(line))
		default:
			b.WriteString(line)
		}
	}
	return b.String()
}

func suffixNL(line string) string {
	if strings.HasSuffix(line, "\n") {
		return "\n"
	}
	return ""
}
