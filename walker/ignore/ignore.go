package ignore

import (
	"bytes"
	"path"
	"slices"
	"strings"
)

// FileNames are the per-directory ignore files, in the order in which a
// walker should load them and pass them to Push for one directory: a
// later file wins over an earlier one.
var FileNames = []string{".gitignore", ".ignore", ".turnbackignore"}

// BuiltinDirs are the names of directories that are ignored by their
// name alone, at any depth, unless git tracks paths in them or an
// ignore file's pattern decides otherwise ("!node_modules/"): names
// that only tools give to dependency trees and caches. A file with one
// of these names is not ignored. An entry named ".git" is ignored too,
// whatever its kind (see IsBuiltin). The list is informational:
// changing it has no effect on IsBuiltin.
var BuiltinDirs = append([]string(nil), builtinDirs...)

// EvidenceDirs are the names that generated directories often have but
// source directories have too (a Go package "build", a committed
// "dist"). Such a directory is ignored only when it shows it is
// generated (see Evidence), by an ignore file, or by the walker's
// large-new-directory rule.
var EvidenceDirs = append([]string(nil), evidenceDirs...)

var builtinDirs = []string{
	// JavaScript / TypeScript
	"node_modules", "bower_components", ".next", ".nuxt", ".turbo",
	".parcel-cache", ".svelte-kit", ".sass-cache", ".angular",
	".docusaurus", ".pnpm-store",
	// Python
	"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
	".hypothesis", ".tox", ".nox", ".eggs", ".ipynb_checkpoints",
	// build tools
	".gradle", ".dart_tool", ".stack-work", ".terraform",
}

var evidenceDirs = []string{
	// virtual environments: pyvenv.cfg, conda-meta
	".venv", "venv", "env", ".env",
	// build outputs: CMakeCache.txt, .ninja_log, ...
	"build", "dist", "target", "out",
	// caches: CACHEDIR.TAG only
	".cache",
}

var builtinSet = setOf(builtinDirs)

var evidenceSet = setOf(evidenceDirs)

func setOf(names []string) map[string]struct{} {
	m := make(map[string]struct{}, len(names))
	for _, d := range names {
		m[d] = struct{}{}
	}
	return m
}

// IsBuiltin reports whether an entry is ignored by a built-in rule on
// its name alone when nothing else decides (see Matcher.Judge): ".git"
// of any kind (a directory, or the file that submodules and worktrees
// use), and the directories named in BuiltinDirs.
func IsBuiltin(name string, isDir bool) bool {
	if isDotGit(name) {
		return true
	}
	if !isDir {
		return false
	}
	_, ok := builtinSet[name]
	return ok
}

// Rules are the compiled patterns of one ignore file found in directory
// Base. They are immutable and safe for concurrent use.
type Rules struct {
	// Base is the slash-separated directory of the ignore file relative
	// to the work-tree root, "" for the root.
	Base string
	// File is the ignore file's name (".gitignore"), for reports; Parse
	// leaves it empty.
	File string

	pats []rule
	// negates: a "!" pattern with a slash is among pats.
	negates bool
	// An index over pats, to avoid trying every line: a rule that is a
	// plain name ("logs") is found by the name, an anchored plain path
	// ("/build", "a/b") by the path below Base, a rule "*.ext" (one dot)
	// by the extension; those lists run from the last line to the first.
	// rest holds every other rule, first line first.
	byName map[string][]int32
	byPath map[string][]int32
	byExt  map[string][]int32
	rest   []int32
}

// rule is one compiled line of an ignore file.
type rule struct {
	g        glob
	negate   bool  // "!pattern"
	dirOnly  bool  // "pattern/"
	basename bool  // no '/' in the pattern: match the last path component
	line     int32 // 1-based line number in the file
	text     string
}

var utf8BOM = []byte("\xef\xbb\xbf")

// Parse compiles the ignore file data found in directory base (slash-
// separated, relative to the work-tree root; "" or "." for the root).
// It never fails: lines that can never match (an unclosed bracket, an
// unknown [:class:], a trailing backslash, "!" alone) are dropped, as git
// in effect does. It accepts LF and CRLF line ends, a UTF-8 byte-order
// mark and lines of any length; like git, it reads a line only up to a
// NUL byte.
func Parse(base string, data []byte) *Rules {
	r := &Rules{Base: cleanBase(base)}
	data = bytes.TrimPrefix(data, utf8BOM)
	for line := int32(1); len(data) > 0; line++ {
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(l) == 0 || l[0] == '#' {
			continue
		}
		if l[len(l)-1] == '\r' {
			l = l[:len(l)-1]
		}
		if i := bytes.IndexByte(l, 0); i >= 0 {
			l = l[:i]
		}
		l = trimTrailingSpaces(l)
		if ru, ok := compileRule(string(l)); ok {
			ru.line, ru.text = line, string(l)
			r.pats = append(r.pats, ru)
			r.negates = r.negates || ru.negate && !ru.basename
		}
	}
	r.index()
	return r
}

// index fills byName, byPath, byExt and rest.
func (r *Rules) index() {
	add := func(m *map[string][]int32, key string, i int32) {
		if *m == nil {
			*m = make(map[string][]int32)
		}
		(*m)[key] = append((*m)[key], i)
	}
	for i := range r.pats {
		p := &r.pats[i]
		g := &p.g
		switch {
		case p.basename && g.mode == midEmpty:
			add(&r.byName, g.prefix+g.suffix, int32(i))
		case g.mode == midEmpty:
			add(&r.byPath, g.prefix+g.suffix, int32(i))
		case p.basename && g.mode == midStar && g.prefix == "" &&
			strings.LastIndexByte(g.suffix, '.') == 0:
			add(&r.byExt, g.suffix, int32(i))
		default:
			r.rest = append(r.rest, int32(i))
		}
	}
	for _, m := range []map[string][]int32{r.byName, r.byPath, r.byExt} {
		for _, list := range m {
			slices.Reverse(list) // the last line first
		}
	}
}

// latest returns the first rule in list (the latest line) that applies to
// an entry of this kind, or -1.
func (r *Rules) latest(list []int32, isDir bool) int32 {
	for _, i := range list {
		if isDir || !r.pats[i].dirOnly {
			return i
		}
	}
	return -1
}

// cleanBase turns base into the form Match compares against: no leading,
// trailing or doubled slashes, no "." or ".." elements, "" for the root.
func cleanBase(base string) string {
	return path.Clean("/" + base)[1:]
}

// trimTrailingSpaces removes the unescaped spaces at the end of l. A
// backslash escapes the byte after it, so "a\ " keeps one space; a
// trailing lone backslash stops the trimming (the pattern then never
// matches anyway).
func trimTrailingSpaces(l []byte) []byte {
	cut := -1
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case ' ':
			if cut < 0 {
				cut = i
			}
		case '\\':
			i++
			if i >= len(l) {
				return l
			}
			cut = -1
		default:
			cut = -1
		}
	}
	if cut >= 0 {
		return l[:cut]
	}
	return l
}

// compileRule compiles one line (comments and blank lines already
// skipped, trailing spaces trimmed). ok is false when it can never match.
func compileRule(s string) (r rule, ok bool) {
	if strings.HasPrefix(s, "!") {
		r.negate = true
		s = s[1:]
	}
	if strings.HasSuffix(s, "/") {
		r.dirOnly = true
		s = s[:len(s)-1]
	}
	if s == "" {
		return r, false
	}
	r.basename = strings.IndexByte(s, '/') < 0
	if !r.basename && s[0] == '/' {
		s = s[1:] // anchored; one slash only, as in git
		if s == "" {
			return r, false
		}
	}
	r.g = compileGlob(s)
	return r, !r.g.never
}

// Match reports the verdict of the last pattern in r that matches rel, a
// slash-separated path relative to the work-tree root that lies under
// r.Base. found is false when no pattern matches (or rel is not under
// r.Base); ignored is true for a normal pattern and false for a "!"
// negation. isDir must be true only for a real directory (git treats a
// symlink to a directory as a non-directory).
func (r *Rules) Match(rel string, isDir bool) (ignored, found bool) {
	i := r.match(rel, isDir)
	if i < 0 {
		return false, false
	}
	return !r.pats[i].negate, true
}

// match returns the index of the last pattern that matches rel, or -1.
func (r *Rules) match(rel string, isDir bool) int {
	if r == nil || len(r.pats) == 0 {
		return -1
	}
	rel = strings.TrimRight(rel, "/")
	name := rel
	if r.Base != "" {
		if len(rel) <= len(r.Base) || rel[len(r.Base)] != '/' || rel[:len(r.Base)] != r.Base {
			return -1
		}
		name = rel[len(r.Base)+1:]
	}
	if name == "" {
		return -1
	}
	last := name[strings.LastIndexByte(name, '/')+1:]
	best := r.latest(r.byName[last], isDir)
	if r.byPath != nil {
		best = max(best, r.latest(r.byPath[name], isDir))
	}
	if r.byExt != nil {
		if dot := strings.LastIndexByte(last, '.'); dot >= 0 {
			best = max(best, r.latest(r.byExt[last[dot:]], isDir))
		}
	}
	for j := len(r.rest) - 1; j >= 0 && r.rest[j] > best; j-- {
		p := &r.pats[r.rest[j]]
		if p.dirOnly && !isDir {
			continue
		}
		t := name
		if p.basename {
			t = last
		}
		if p.g.match(t) {
			return int(r.rest[j])
		}
	}
	return int(best)
}

// Matcher is an immutable stack of Rules from the work-tree root down to
// one directory, with what git tracks there (see Track). Deeper Rules
// win over shallower ones; Rules pushed together are given in order and
// later ones win. A Matcher is safe for concurrent use, and a nil
// *Matcher behaves like New().
type Matcher struct {
	parent *Matcher
	rules  []*Rules // this level's rules, in order
	// tracked, if set, says which directories below tbase hold paths
	// git tracks; it replaces any tracked set of the levels above.
	tracked Tracked
	tbase   string
	// excl, if set, is the verdict of an ignore file's pattern on a
	// directory at or above this level, kept for the tracked paths in
	// it (see Exclude).
	excl *Verdict
}

// Tracked is what git tracks below where it was given (Matcher.Track),
// by slash path relative to there: the directories that hold tracked
// paths (Has), and the files and symlinks (HasFile).
type Tracked interface {
	Has(rel string) bool
	HasFile(rel string) bool
}

// New returns a Matcher with nothing but the built-in rules.
func New() *Matcher { return &Matcher{} }

// Push returns a Matcher for a child directory that also applies rules
// (normally the files of FileNames found in that directory, in that
// order). m is unchanged. Nil and empty Rules are skipped; if none is
// left, Push returns m itself.
func (m *Matcher) Push(rules ...*Rules) *Matcher {
	var keep []*Rules
	for _, r := range rules {
		if r != nil && len(r.pats) > 0 {
			keep = append(keep, r)
		}
	}
	if len(keep) == 0 {
		if m == nil {
			return New()
		}
		return m
	}
	n := &Matcher{parent: m, rules: keep}
	if m != nil {
		n.excl = m.excl
	}
	return n
}

// Track returns a Matcher for which the directories t holds below base
// (the slash path of the directory holding ".git", relative to the
// work-tree root) are tracked. It replaces the tracked set of m's
// levels for every path below base. t nil means nothing is tracked
// below base.
func (m *Matcher) Track(base string, t Tracked) *Matcher {
	if t == nil {
		t = noneTracked{}
	}
	var excl *Verdict
	if m != nil {
		excl = m.excl
	}
	return &Matcher{parent: m, tracked: t, tbase: cleanBase(base), excl: excl}
}

type noneTracked struct{}

func (noneTracked) Has(string) bool     { return false }
func (noneTracked) HasFile(string) bool { return false }

// isTracked reports whether directory rel holds tracked paths under the
// nearest tracked set.
func (m *Matcher) isTracked(rel string) bool {
	t, sub := m.trackedSet(rel)
	return t != nil && t.Has(sub)
}

// trackedSet returns the nearest tracked set of rel and rel's path
// relative to it; nil if none holds rel.
func (m *Matcher) trackedSet(rel string) (Tracked, string) {
	for f := m; f != nil; f = f.parent {
		if f.tracked == nil {
			continue
		}
		if f.tbase == "" {
			return f.tracked, rel
		}
		if len(rel) <= len(f.tbase) || rel[len(f.tbase)] != '/' || rel[:len(f.tbase)] != f.tbase {
			continue // not below this set's repository
		}
		return f.tracked, rel[len(f.tbase)+1:]
	}
	return nil, ""
}

// Ignored reports whether the entry at rel (slash-separated, relative to
// the work-tree root) is ignored, as Judge says, before any evidence is
// looked at: a directory that Judge leaves to evidence is not ignored.
// It judges rel alone: a walker must not descend into ignored
// directories, which is how "a file inside an ignored directory cannot
// be re-included" holds.
func (m *Matcher) Ignored(rel string, isDir bool) bool {
	return m.Judge(rel, isDir).Ignored
}

// Judge gives the verdict on the entry at rel (slash-separated, relative
// to the work-tree root; isDir only for a real directory), in this
// order: ".git" is ignored; else the deepest, last pattern of an ignore
// file that matches decides ("!" un-ignores); else a file is kept; a
// directory holding tracked paths is kept; a directory with a name of
// BuiltinDirs is ignored; any other directory is kept unless it shows
// evidence (Verdict.Probe; see Evidence).
func (m *Matcher) Judge(rel string, isDir bool) Verdict {
	rel = strings.TrimRight(rel, "/")
	name := rel[strings.LastIndexByte(rel, '/')+1:]
	if isDotGit(name) {
		return Verdict{Ignored: true, Source: SourceGit}
	}
	if m != nil && m.excl != nil {
		return m.judgeExcluded(rel, isDir)
	}
	for f := m; f != nil; f = f.parent {
		for i := len(f.rules) - 1; i >= 0; i-- {
			r := f.rules[i]
			if j := r.match(rel, isDir); j >= 0 {
				p := &r.pats[j]
				v := Verdict{Ignored: !p.negate, Source: SourceFile, Rules: r, Line: int(p.line), Pattern: p.text}
				if v.Ignored && m.trackedPath(rel, isDir) {
					v.Ignored, v.Source = false, SourceForced
				}
				return v
			}
		}
	}
	if !isDir {
		return Verdict{}
	}
	if m.isTracked(rel) {
		return Verdict{Source: SourceTracked}
	}
	// A "!" pattern naming a path inside (build/* then !build/keep.c)
	// is how a user keeps files in a directory its name or evidence
	// would skip: the patterns decide its entries instead.
	if r, p := m.negationBelow(rel); p != nil {
		return Verdict{Source: SourceFile, Rules: r, Line: int(p.line), Pattern: p.text}
	}
	if _, ok := builtinSet[name]; ok {
		return Verdict{Ignored: true, Source: SourceName}
	}
	if _, ok := evidenceSet[name]; ok {
		return Verdict{Probe: ProbeName}
	}
	return Verdict{Probe: ProbeTag}
}

// negationBelow returns the first "!" pattern in scope whose literal
// start names a path strictly inside directory rel ("!build/keep.c",
// "!node_modules/mylib/" for rel "build", "node_modules"). A pattern
// without a slash, or whose first wildcard comes before rel's end,
// names no such path.
func (m *Matcher) negationBelow(rel string) (*Rules, *rule) {
	for f := m; f != nil; f = f.parent {
		for _, r := range f.rules {
			if r == nil || !r.negates {
				continue
			}
			for i := range r.pats {
				p := &r.pats[i]
				if !p.negate || p.basename {
					continue
				}
				lit := p.g.prefix
				if p.g.mode == midEmpty {
					lit += p.g.suffix
				}
				if r.Base != "" {
					lit = r.Base + "/" + lit
				}
				if len(lit) > len(rel)+1 && lit[len(rel)] == '/' && lit[:len(rel)] == rel {
					return r, p
				}
			}
		}
	}
	return nil, nil
}
