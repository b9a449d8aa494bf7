package daemons

import (
	"strings"
	"testing"
)

// TestParseDaemonArgs: which command lines are watch daemons (and not
// watch clients), and the folder and store they name, as the CLI parses
// its flags.
func TestParseDaemonArgs(t *testing.T) {
	for _, tc := range []struct {
		args       string
		daemon     bool
		dir, store string
	}{
		{"-C /w --store /s watch --idle-timeout 30m0s --auto", true, "/w", "/s"},
		{"watch", true, "", ""},
		{"-C=/w --store=/s watch", true, "/w", "/s"},
		{"--json watch -C rel --store st", true, "rel", "st"},
		{"--force -C /w watch --queue-size=10", true, "/w", ""},
		{"-C /w watch --detach", false, "/w", ""},
		{"watch --stop", false, "", ""},
		{"watch --status", false, "", ""},
		{"watch --list", false, "", ""},
		{"watch --stop-all --under /tmp", false, "", ""},
		{"watch --help", false, "", ""},
		{"-C /w snap", false, "/w", ""},
		{"-C watch snap", false, "watch", ""},
		{"watch extra", false, "", ""},
		{"", false, "", ""},
		{"watch --flag-of-a-later-version", true, "", ""},
		{"--later=1 watch", true, "", ""},
		{"-C /w --store /s serve --listen 127.0.0.1:7077", true, "/w", "/s"},
		{"serve", true, "", ""},
		{"-C /w serve --print-token", false, "/w", ""},
		{"serve --help", false, "", ""},
	} {
		a := parseArgs(strings.Fields(tc.args))
		if a.daemon != tc.daemon || (tc.daemon && (a.dir != tc.dir || a.store != tc.store)) {
			t.Errorf("parseArgs(%q) = %+v; want daemon %v, dir %q, store %q", tc.args, a, tc.daemon, tc.dir, tc.store)
		}
	}
}

// FuzzParseDaemonArgs: any command line parses without a panic.
func FuzzParseDaemonArgs(f *testing.F) {
	f.Add("-C /w --store /s watch --idle-timeout 30m0s")
	f.Add("watch --stop-all --under=")
	f.Fuzz(func(t *testing.T, s string) {
		parseArgs(strings.Split(s, " "))
	})
}
