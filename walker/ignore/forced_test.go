package ignore

import (
	"slices"
	"testing"
)

// trackedFiles is a Tracked of directories and files.
type trackedFiles struct{ dirs, files map[string]bool }

func (t trackedFiles) Has(rel string) bool     { return t.dirs[rel] }
func (t trackedFiles) HasFile(rel string) bool { return t.files[rel] }

// TestJudgeForced: git never ignores what it tracks. A tracked file a
// pattern matches is kept (SourceForced), and so is a directory a
// pattern matches that holds tracked paths; below it (Exclude) only
// tracked paths are kept, whatever the ignore files there say. A nested
// repository's set decides below it.
func TestJudgeForced(t *testing.T) {
	tr := trackedFiles{
		dirs:  map[string]bool{"build": true, "build/sub": true, "sub": true},
		files: map[string]bool{"a.cfg": true, "build/keep.txt": true, "build/sub/k.o": true, "sub/c.cfg": true, "link.cfg": true},
	}
	r := Parse("", []byte("*.cfg\nbuild/\n!keep.cfg\n"))
	r.File = ".gitignore"
	root := New().Track("", tr).Push(r)
	in := root.Exclude(root.Judge("build", true))
	deeper := Parse("build", []byte("!*\n"))
	deeper.File = ".gitignore"
	inPushed := in.Push(deeper)
	for _, c := range []struct {
		m       *Matcher
		rel     string
		isDir   bool
		ignored bool
		src     Source
	}{
		{root, "a.cfg", false, false, SourceForced},
		{root, "link.cfg", false, false, SourceForced}, // a symlink: a file to the index
		{root, "b.cfg", false, true, SourceFile},
		{root, "keep.cfg", false, false, SourceFile},
		{root, "sub/c.cfg", false, false, SourceForced},
		{root, "sub/d.cfg", false, true, SourceFile},
		{root, "a.cfg", true, true, SourceFile}, // a directory named a.cfg is not the file
		{root, "build", true, false, SourceForced},
		{root, "x/build", true, true, SourceFile},
		{root, "sub/.git", true, true, SourceGit},
		{in, "build/keep.txt", false, false, SourceForced},
		{in, "build/other.o", false, true, SourceFile},
		{in, "build/sub", true, false, SourceForced},
		{in, "build/gen", true, true, SourceFile},
		{in, "build/.git", true, true, SourceGit},
		{inPushed, "build/other.o", false, true, SourceFile}, // "!*" below cannot un-ignore
		{inPushed, "build/keep.txt", false, false, SourceForced},
	} {
		v := c.m.Judge(c.rel, c.isDir)
		if v.Ignored != c.ignored || v.Source != c.src {
			t.Errorf("Judge(%q, %v) = %+v", c.rel, c.isDir, v)
		}
	}
	if got := root.Judge("a.cfg", false).Reason(); got != "kept: git tracks it, though .gitignore line 1 ignores it: *.cfg" {
		t.Errorf("Reason = %q", got)
	}
	if got := in.Judge("build/other.o", false).Reason(); got != "ignored by .gitignore line 2: build/" {
		t.Errorf("Reason below = %q", got)
	}
	// Without a tracked set (a stored state's matcher) nothing is kept
	// below Exclude.
	bare := New().Push(r)
	v := bare.Judge("build", true)
	if !v.Ignored || v.Source != SourceFile || !bare.Exclude(v).Ignored("build/keep.txt", false) {
		t.Errorf("untracked: %+v", v)
	}
	// A nested repository below an excluded directory: its own set.
	nested := in.Track("build/lib", trackedFiles{files: map[string]bool{"x.o": true}})
	if nested.Ignored("build/lib/x.o", false) || !nested.Ignored("build/lib/y.o", false) || nested.Ignored("build/keep.txt", false) || !nested.Ignored("build/other.o", false) {
		t.Error("nested set below an excluded directory")
	}
	// A nil Matcher's Exclude.
	var none *Matcher
	if !none.Exclude(v).Ignored("x", false) {
		t.Error("nil Exclude")
	}
}

// listing is a Tracked and Lister that appends its name and the
// directory asked for.
type listing struct {
	trackedFiles
	name string
}

func (l listing) AppendList(buf []byte, dir string) []byte {
	return append(buf, l.name+":"+dir+"\x00"...)
}

func (l listing) AppendNamed(buf []string, dir string) []string {
	return append(buf, l.name+":"+dir)
}

// TestAppendTracked: a directory's tracked entries, and its tracked
// directories of a built-in name (AppendTrackedNamed), come from the
// nearest set that holds the directory, asked relative to its base; a
// repository's top asks its own set; a set that lists nothing, or none,
// appends nothing.
func TestAppendTracked(t *testing.T) {
	top := New().Track("", listing{name: "top"})
	nested := top.Push(Parse("", []byte("*.o\n"))).Track("lib/sub", listing{name: "sub"})
	plain := New().Track("", trackedFiles{})
	for _, c := range []struct {
		m        *Matcher
		rel, out string
	}{
		{top, "", "top:"},
		{top, "build/x", "top:build/x"},
		{nested, "lib", "top:lib"},
		{nested, "lib/sub", "sub:"},
		{nested, "lib/sub/a/b", "sub:a/b"},
		{nested, "lib/subx", "top:lib/subx"},
		{nested.Exclude(Verdict{Ignored: true, Source: SourceForced}), "lib/sub/a", "sub:a"},
		{plain, "a", ""},
		{New(), "a", ""},
		{nil, "", ""},
	} {
		want := "x"
		if c.out != "" {
			want += c.out + "\x00"
		}
		if got := string(c.m.AppendTracked([]byte("x"), c.rel)); got != want {
			t.Errorf("AppendTracked(%q) = %q, want %q", c.rel, got, want)
		}
		wantNamed := []string{"x"}
		if c.out != "" {
			wantNamed = append(wantNamed, c.out)
		}
		if got := c.m.AppendTrackedNamed([]string{"x"}, c.rel); !slices.Equal(got, wantNamed) {
			t.Errorf("AppendTrackedNamed(%q) = %q, want %q", c.rel, got, wantNamed)
		}
	}
	if top.HasPatterns() || New().HasPatterns() || !nested.HasPatterns() || !nested.Track("x", nil).HasPatterns() ||
		!top.Exclude(Verdict{}).HasPatterns() || top.Push(Parse("", []byte("# none\n"))).HasPatterns() {
		t.Error("HasPatterns")
	}
}
