package cli

import (
	"slices"
	"strings"
	"testing"
)

// TestDiffSaysSkippedNow: the built binary, without and with a watch
// daemon (which serves diff). src/main.c is captured by the snap, then
// src/ becomes skipped (a CACHEDIR.TAG, or a .gitignore line). diff
// rightly does not show src/main.c deleted, but it must say why it is
// not there, as status does: "skipped now: src/ (why)" after the diff,
// and "skipped_now" in --json. So for the folder now, for the turn
// (diff @1) and for its two states (diff @1^ @1). A stored state does
// not name the marker it skipped for: there the words are shorter.
func TestDiffSaysSkippedNow(t *testing.T) {
	t.Parallel()
	g := newSubtestGroup(t)
	type skippedDoc struct {
		Path string `json:"path"`
		Dir  bool   `json:"dir"`
		Rule string `json:"rule"`
	}
	type doc struct {
		Files []struct {
			Path string `json:"path"`
		} `json:"files"`
		SkippedNow []skippedDoc `json:"skipped_now"`
	}
	for _, c := range []struct {
		name, file, data string
		why, rule        string // status's words, and the --json rule
		stored           string // the words between two stored states
	}{
		{"marker", "src/CACHEDIR.TAG", e2eCacheDirTag, "generated: holds src/CACHEDIR.TAG", "evidence", "generated"},
		{"ignore rule", ".gitignore", "src/\n", "ignored by .gitignore line 1: src/", "file", "ignored by .gitignore line 1: src/"},
	} {
		for _, env := range []string{"store", "watch"} {
			g.run(c.name+"/"+env, func(t *testing.T) {
				e := skippedNowSetup(t, env, c.file, c.data)
				want := []skippedDoc{{Path: "src", Dir: true, Rule: c.rule}}
				check := func(why string, args ...string) {
					t.Helper()
					line := "skipped now: src/ (" + why + ")\n"
					out := e.ok(append([]string{"diff"}, args...)...).stdout
					if strings.Contains(out, "src/main.c") || !strings.Contains(out, "+a2") || !strings.HasSuffix(out, line) {
						t.Errorf("diff %s does not end with %q, or lists src/main.c:\n%s", strings.Join(args, " "), line, out)
					}
					var d doc
					e.okJSON(&d, append([]string{"diff"}, args...)...)
					for _, f := range d.Files {
						if strings.HasPrefix(f.Path, "src") {
							t.Errorf("diff --json %s lists %s", strings.Join(args, " "), f.Path)
						}
					}
					if !slices.Equal(d.SkippedNow, want) {
						t.Errorf("diff --json %s: skipped_now = %+v, want %+v", strings.Join(args, " "), d.SkippedNow, want)
					}
				}
				check(c.why)
				e.ok("end")
				check(c.stored, "@1")
				check(c.stored, "@1^", "@1")
				check(c.why, "@1^")
			})
		}
	}
	g.wait()
}
