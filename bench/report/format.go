package report

import (
	"fmt"
	"math"
	"strconv"
)

func fmtDur(s float64) string {
	switch {
	case math.IsNaN(s):
		return "—"
	case s < 1:
		return fmt.Sprintf("%.0f ms", s*1000)
	case s < 10:
		return fmt.Sprintf("%.2f s", s)
	default:
		return fmt.Sprintf("%.1f s", s)
	}
}

func fmtBytes(b float64) string {
	switch {
	case math.IsNaN(b):
		return "—"
	case b >= 1e9:
		return fmt.Sprintf("%.2f GB", b/1e9)
	default:
		return fmt.Sprintf("%.1f MB", b/1e6)
	}
}

func fmtCount(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return strconv.Itoa(n)
}

// fmtMB is a size in KB as whole MB.
func fmtMB(kb int64) string { return fmt.Sprintf("%.0f MB", float64(kb)/1000) }

// engineOrder is the order of the engines in tables and the chart.
var engineOrder = []string{"turnback-cli", "turnback-cli-nowatch", "turnback-daemon", "turnback-api", "shadow-git", "restic"}

var engineLabels = map[string]string{
	"turnback-cli":         "turnback CLI",
	"turnback-cli-nowatch": "turnback CLI, no watch",
	"turnback-daemon":      "turnback daemon",
	"turnback-api":         "turnback API",
	"shadow-git":           "shadow git",
	"restic":               "restic",
}

var scenarioLabels = map[string]string{
	"cold":     "cold capture",
	"nochange": "no-change capture",
	"turn":     "turn capture",
	"undo":     "undo of the turn",
	"size":     "store size",

	"b2b-cold":     "back-to-back: cold capture",
	"b2b-nochange": "back-to-back: no-change capture",
	"b2b-turn":     "back-to-back: turn capture",
	"b2b-undo":     "back-to-back: undo",

	"first-cold":     "first captures: cold capture of a fresh copy",
	"first-nochange": "first captures: no-change capture right after",
	"first-turn":     "first captures: turn capture",
	"first-undo":     "first captures: undo",
}
