package ignore

import (
	"io/fs"
	"strings"
	"testing"
)

type setTracked map[string]bool

func (s setTracked) Has(rel string) bool { return s[rel] }

func (s setTracked) HasFile(string) bool { return false }

// fakeDir is a directory listing for Evidence.
type fakeDir map[string]string // name -> content; a name ending in "/" is a directory

func (d fakeDir) Lookup(name string) (fs.FileMode, bool) {
	if _, ok := d[name+"/"]; ok {
		return fs.ModeDir, true
	}
	_, ok := d[name]
	return 0, ok
}

func (d fakeDir) Head(name string, n int) []byte {
	b := []byte(d[name])
	return b[:min(n, len(b))]
}

// TestJudgeNegationInside: a "!" pattern naming a path inside a
// directory that its name or evidence would skip keeps the directory,
// so the patterns decide its entries, as git does.
func TestJudgeNegationInside(t *testing.T) {
	rules := Parse("", []byte("build/*\n!build/keep.c\nnode_modules/*\n!node_modules/mylib/\n!*.keep\n!**/x.c\n!/dist*/a.c\n"))
	sub := Parse("pkg", []byte("!target/keep.rs\n"))
	m := New().Push(rules, sub)
	for _, c := range []struct {
		rel     string
		ignored bool
		src     Source
		probe   Probe
	}{
		{"build", false, SourceFile, ProbeNone},
		{"build/main.o", true, SourceFile, ProbeNone},
		{"build/keep.c", false, SourceFile, ProbeNone},
		{"node_modules", false, SourceFile, ProbeNone},
		{"node_modules/dep", true, SourceFile, ProbeNone},
		{"node_modules/mylib", false, SourceFile, ProbeNone},
		{"x/node_modules", true, SourceName, ProbeNone}, // "!*.keep" and "!**/x.c" name no path inside
		{"dist", false, SourceNone, ProbeName},          // the wildcard comes before the name ends
		{"pkg/target", false, SourceFile, ProbeNone},
		{"target", false, SourceNone, ProbeName},
		{"build/sub", true, SourceFile, ProbeNone},
	} {
		isFile := strings.HasSuffix(c.rel, ".c") || strings.HasSuffix(c.rel, ".o")
		v := m.Judge(c.rel, !isFile)
		if v.Ignored != c.ignored || v.Source != c.src || v.Probe != c.probe {
			t.Errorf("Judge(%q) = %+v", c.rel, v)
		}
	}
}

func TestJudge(t *testing.T) {
	root := New().Track("", setTracked{"go/build": true, "go": true, "lib/node_modules": true})
	user := root.Push(&Rules{}, func() *Rules {
		r := Parse("", []byte("# mine\n!build/\nlogs/\n"))
		r.File = ".turnbackignore"
		return r
	}())
	for _, c := range []struct {
		m       *Matcher
		rel     string
		isDir   bool
		ignored bool
		src     Source
		probe   Probe
	}{
		{root, "a/.git", true, true, SourceGit, ProbeNone},
		{root, "go/build", true, false, SourceTracked, ProbeNone},
		{root, "lib/node_modules", true, false, SourceTracked, ProbeNone},
		{root, "node_modules", true, true, SourceName, ProbeNone},
		{root, "x/build", true, false, SourceNone, ProbeName},
		{root, "x/target", true, false, SourceNone, ProbeName},
		{root, "x/src", true, false, SourceNone, ProbeTag},
		{root, "x/build", false, false, SourceNone, ProbeNone},
		{user, "x/build", true, false, SourceFile, ProbeNone},
		{user, "logs", true, true, SourceFile, ProbeNone},
		{user, "go/build/logs", true, true, SourceFile, ProbeNone}, // user rules apply to tracked paths
		{user, ".git", true, true, SourceGit, ProbeNone},
	} {
		v := c.m.Judge(c.rel, c.isDir)
		if v.Ignored != c.ignored || v.Source != c.src || v.Probe != c.probe {
			t.Errorf("Judge(%q, %v) = %+v", c.rel, c.isDir, v)
		}
	}
	v := user.Judge("logs", true)
	if got := v.Reason(); got != "ignored by .turnbackignore line 3: logs/" {
		t.Errorf("Reason = %q", got)
	}
	// A nested repository's set replaces the outer one below it.
	nested := root.Track("vendor/lib", setTracked{"build": true})
	if nested.Judge("vendor/lib/build", true).Source != SourceTracked ||
		nested.Judge("go/build", true).Source != SourceTracked ||
		nested.Judge("vendor/lib/node_modules", true).Source != SourceName {
		t.Error("nested tracked sets")
	}
	if root.Track("sub", nil).Judge("sub/node_modules", true).Source != SourceName {
		t.Error("a nil set tracks nothing")
	}
}

func TestEvidence(t *testing.T) {
	sig := "Signature: 8a477f597d28d172789f06886806bc55\n# cargo"
	for _, c := range []struct {
		name  string
		probe Probe
		dir   fakeDir
		want  string
	}{
		{"target", ProbeName, fakeDir{CacheDirTag: sig, "debug/": ""}, CacheDirTag},
		{"anything", ProbeTag, fakeDir{CacheDirTag: sig}, CacheDirTag},
		{"target", ProbeName, fakeDir{CacheDirTag: "Signature: 8a477f597d28d172789f06886806bc5"}, ""},
		{"target", ProbeName, fakeDir{CacheDirTag + "/": ""}, ""},
		{"target", ProbeNone, fakeDir{CacheDirTag: sig}, ""},
		{"venv", ProbeName, fakeDir{"pyvenv.cfg": "home = /usr"}, "pyvenv.cfg"},
		{"mylibs", ProbeTag, fakeDir{"pyvenv.cfg": ""}, ""},
		{".env", ProbeName, fakeDir{"conda-meta/": ""}, "conda-meta"},
		{"build", ProbeName, fakeDir{"CMakeCache.txt": ""}, "CMakeCache.txt"},
		{"build", ProbeName, fakeDir{"run.sh": "#!/bin/sh"}, ""},
		{"deps", ProbeTag, fakeDir{".package-lock.json": npmHiddenLock}, ".package-lock.json"},
		{"notes", ProbeTag, fakeDir{".package-lock.json": "{}"}, ""},
		{"web", ProbeTag, fakeDir{".package-lock.json": npmRootLock}, ""},
		{"deps", ProbeTag, fakeDir{".modules.yaml": pnpmModulesYAML}, ".modules.yaml"},
		{"deps", ProbeTag, fakeDir{".modules.yaml": "modules:\n  - auth\n"}, ""},
		{"deps", ProbeTag, fakeDir{".yarn-state.yml": yarnStateYML}, ".yarn-state.yml"},
		{"deps", ProbeTag, fakeDir{".yarn-state.yml": "__metadata:\n"}, ""},
		{"deps", ProbeTag, fakeDir{".yarn-integrity": yarnIntegrityJSON}, ".yarn-integrity"},
		{"deps", ProbeTag, fakeDir{".yarn-integrity": "ok\n"}, ""},
		{"dist", ProbeName, fakeDir{"app.js": ""}, ""},
	} {
		if got := Evidence(c.name, c.probe, c.dir); got != c.want {
			t.Errorf("Evidence(%q, %v, %v) = %q, want %q", c.name, c.probe, c.dir, got, c.want)
		}
	}
}
