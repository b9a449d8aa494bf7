package ignore

import (
	"fmt"
	"io/fs"
	"path"
)

// Source is what decided a Verdict.
type Source uint8

// The sources of a Verdict.
const (
	SourceNone     Source = iota // no rule: a file, or a directory without evidence
	SourceGit                    // ".git"
	SourceFile                   // a pattern of an ignore file (Verdict.Rules, Line)
	SourceTracked                // kept: git tracks paths in the directory
	SourceName                   // a name of BuiltinDirs
	SourceEvidence               // a file or directory inside (Verdict.Evidence)
	// SourceForced: kept though a pattern of an ignore file ignores it
	// (Verdict.Rules, Line, Pattern), as git keeps what it tracks: a
	// tracked file, or a directory holding tracked paths (see Exclude).
	SourceForced
)

// Probe says which evidence a directory that Judge keeps must be looked
// at for (see Evidence).
type Probe uint8

// The probes.
const (
	ProbeNone Probe = iota // nothing: the verdict is final
	ProbeTag               // the markers every directory is judged by
	ProbeName              // those and the markers of its EvidenceDirs name
)

// Verdict is Judge's answer for one entry.
type Verdict struct {
	Ignored bool
	Source  Source
	// Rules, Line and Pattern name the deciding line (SourceFile).
	Rules   *Rules
	Line    int
	Pattern string
	// Evidence is the marker found (SourceEvidence), as Evidence names it.
	Evidence string
	// Probe: the entry is a directory kept unless Evidence finds a
	// marker in it.
	Probe Probe
}

// Reason says in a few words why an ignored entry is ignored.
func (v Verdict) Reason() string {
	switch v.Source {
	case SourceGit:
		return "git's own directory"
	case SourceFile:
		f := ruleFile(v.Rules)
		neg := "ignored by"
		if !v.Ignored {
			neg = "kept by"
		}
		return fmt.Sprintf("%s %s line %d: %s", neg, path.Join(v.Rules.Base, f), v.Line, v.Pattern)
	case SourceTracked:
		return "kept: git tracks paths in it"
	case SourceForced:
		return fmt.Sprintf("kept: git tracks it, though %s line %d ignores it: %s", path.Join(v.Rules.Base, ruleFile(v.Rules)), v.Line, v.Pattern)
	case SourceName:
		return "built-in name (dependencies or a cache)"
	case SourceEvidence:
		return "generated: holds " + v.Evidence
	}
	return ""
}

// Dir is what Evidence may ask of a directory: the lstat mode of one of
// its entries, and the first n bytes of one of its regular files.
type Dir interface {
	Lookup(name string) (mode fs.FileMode, ok bool)
	Head(name string, n int) []byte
}

// CacheDirTag is the cache directory tag's file name, and its required
// first bytes (https://bford.info/cachedir/).
const (
	CacheDirTag       = "CACHEDIR.TAG"
	cacheDirSignature = "Signature: 8a477f597d28d172789f06886806bc55"
)

// marker is a file or directory whose presence shows that the directory
// holding it was generated; a file with a signature only when its first
// sigBytes pass it.
type marker struct {
	name string
	dir  bool
	sig  func(head []byte) bool
}

// anyMarkers mark a directory of any name: package managers' own files
// inside the trees they install (npm, pnpm, yarn 2+, yarn 1), each as
// the tool writes it (signature.go).
var anyMarkers = []marker{
	{".package-lock.json", false, npmHidden}, {".modules.yaml", false, pnpmModules},
	{".yarn-state.yml", false, yarnState}, {".yarn-integrity", false, yarnIntegrity},
}

// nameMarkers mark a directory of an EvidenceDirs name.
var nameMarkers = map[string][]marker{
	".venv": venvMarkers, "venv": venvMarkers, "env": venvMarkers, ".env": venvMarkers,
	"build": buildMarkers, "dist": buildMarkers, "target": buildMarkers, "out": buildMarkers,
}

var venvMarkers = []marker{{"pyvenv.cfg", false, nil}, {"conda-meta", true, nil}}

// buildMarkers: CMake's and meson's build directories, ninja's log, and
// cargo's (which also writes CACHEDIR.TAG).
var buildMarkers = []marker{
	{"CMakeCache.txt", false, nil}, {".ninja_log", false, nil},
	{"meson-private", true, nil}, {".rustc_info.json", false, nil},
}

// Evidence returns the marker that shows directory d (named name, which
// Judge gave probe p) was generated, "" if it holds none: a CACHEDIR.TAG
// starting with the convention's signature, a package manager's file
// as the tool writes it (node_modules/.package-lock.json, ...), or for a name of EvidenceDirs
// that name's markers (pyvenv.cfg, CMakeCache.txt, ...).
func Evidence(name string, p Probe, d Dir) string {
	if p == ProbeNone {
		return ""
	}
	if mode, ok := d.Lookup(CacheDirTag); ok && mode.IsRegular() &&
		string(d.Head(CacheDirTag, len(cacheDirSignature))) == cacheDirSignature {
		return CacheDirTag
	}
	ms := anyMarkers
	if p == ProbeName {
		ms = append(ms[:len(ms):len(ms)], nameMarkers[name]...)
	}
	for _, m := range ms {
		if mode, ok := d.Lookup(m.name); ok && (m.dir && mode.IsDir() || !m.dir && mode.IsRegular()) &&
			(m.sig == nil || m.sig(d.Head(m.name, sigBytes))) {
			return m.name
		}
	}
	return ""
}

// ruleFile names the file of r, "ignore file" if unknown.
func ruleFile(r *Rules) string {
	if r.File == "" {
		return "ignore file"
	}
	return r.File
}
