package main

import (
	"strings"
)

// ANSI colours, used only when stdout is a terminal and NO_COLOR is unset
// (https://no-color.org).
const (
	ansiReset  = "\033[0m"
	ansiBold   = "\033[1m"
	ansiRed    = "\033[31m"
	ansiGreen  = "\033[32m"
	ansiYellow = "\033[33m"
	ansiCyan   = "\033[36m"
)

// useColor reports whether output to w should be coloured.
func (g *globals) useColor() bool {
	if g.json || g.getenv("NO_COLOR") != "" || g.getenv("TERM") == "dumb" {
		return false
	}
	return g.outTTY
}

func paint(on bool, color, s string) string {
	if !on || s == "" {
		return s
	}
	return color + s + ansiReset
}

// markColor is the colour of a status mark.
func markColor(mark string) string {
	switch mark {
	case "A":
		return ansiGreen
	case "D":
		return ansiRed
	}
	return ansiYellow
}

// colorDiff colours a unified diff line by line.
func colorDiff(text string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "diff --turnback "), strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "+++ "),
			strings.HasPrefix(line, "old mode "), strings.HasPrefix(line, "new mode "), strings.HasPrefix(line, "new file mode "),
			strings.HasPrefix(line, "deleted file mode "):
			b.WriteString(paint(true, ansiBold, strings.TrimSuffix(line, "\n")) + suffixNL(line))
		case strings.HasPrefix(line, "@@"):
			b.WriteString(paint(true, ansiCyan, strings.TrimSuffix(line, "\n")) + suffixNL(line))
		case strings.HasPrefix(line, "+"):
			b.WriteString(paint(true, ansiGreen, strings.TrimSuffix(line, "\n")) + suffixNL(line))
		case strings.HasPrefix(line, "-"):
			b.WriteString(paint(true, ansiRed, strings.TrimSuffix(line, "\n")) + suffixNL(line))
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
