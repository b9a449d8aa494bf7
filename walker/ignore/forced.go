package ignore

// Git never ignores what it tracks: a tracked file is kept whatever
// pattern matches it, and a directory an ignore file's pattern ignores
// but that holds tracked paths is entered for them alone.

// trackedPath reports whether git tracks rel: a file (or symlink), or
// a directory holding tracked paths, under the nearest tracked set.
func (m *Matcher) trackedPath(rel string, isDir bool) bool {
	t, sub := m.trackedSet(rel)
	if t == nil {
		return false
	}
	if isDir {
		return t.Has(sub)
	}
	return t.HasFile(sub)
}

// Exclude returns the Matcher for the entries of a directory that v, a
// pattern of an ignore file, ignores, but that is kept for the tracked
// paths it holds (v.Source is SourceForced; or, for a caller that
// knows no tracked set, SourceFile). Below it every entry is ignored
// by v's pattern unless the nearest tracked set holds it: ignore files
// pushed below decide nothing, since git never un-ignores a path below
// an ignored directory. ".git" stays ignored.
func (m *Matcher) Exclude(v Verdict) *Matcher {
	x := &Verdict{Ignored: true, Source: SourceFile, Rules: v.Rules, Line: v.Line, Pattern: v.Pattern}
	if m == nil {
		m = New()
	}
	return &Matcher{parent: m, excl: x}
}

// judgeExcluded is Judge below a directory Exclude gave.
func (m *Matcher) judgeExcluded(rel string, isDir bool) Verdict {
	x := *m.excl
	if m.trackedPath(rel, isDir) {
		x.Ignored, x.Source = false, SourceForced
	}
	return x
}

// HasPatterns reports whether a pattern of an ignore file applies to
// m's entries: without one, nothing tracked is ignored by a pattern.
func (m *Matcher) HasPatterns() bool {
	for f := m; f != nil; f = f.parent {
		if len(f.rules) > 0 || f.excl != nil {
			return true
		}
	}
	return false
}

// Lister is a Tracked that lists what it tracks in one directory
// (gitindex.Set): AppendList appends to buf each file directly in dir
// ("" its top) by its name and a NUL, and once each subdirectory
// holding tracked files by its name and a "/".
type Lister interface {
	AppendList(buf []byte, dir string) []byte
}

// NamedLister is a Tracked that lists the directories holding tracked
// paths that have a name of BuiltinDirs (gitindex.Set): AppendNamed
// appends to buf those below dir ("" its top), by their paths relative
// to dir, sorted.
type NamedLister interface {
	AppendNamed(buf []string, dir string) []string
}

// AppendTracked appends to buf what the nearest tracked set of the
// entries of directory rel tracks there, as Lister says; nothing if
// that set is no Lister. A repository's top (Track's base) lists its
// own set.
func (m *Matcher) AppendTracked(buf []byte, rel string) []byte {
	if t, sub := m.listerOf(rel); t != nil {
		if l, ok := t.(Lister); ok {
			return l.AppendList(buf, sub)
		}
	}
	return buf
}

// AppendTrackedNamed appends to buf the directories below directory
// rel that its nearest tracked set holds and that have a name of
// BuiltinDirs, as NamedLister says, by their paths relative to rel;
// nothing if that set is no NamedLister.
func (m *Matcher) AppendTrackedNamed(buf []string, rel string) []string {
	if t, sub := m.listerOf(rel); t != nil {
		if l, ok := t.(NamedLister); ok {
			return l.AppendNamed(buf, sub)
		}
	}
	return buf
}

// listerOf returns the nearest tracked set of the entries of directory
// rel, and rel relative to it: "" at a repository's top (Track's base).
func (m *Matcher) listerOf(rel string) (Tracked, string) {
	for f := m; f != nil; f = f.parent {
		if f.tracked == nil {
			continue
		}
		sub := rel
		if f.tbase != "" {
			switch {
			case rel == f.tbase:
				sub = ""
			case len(rel) > len(f.tbase) && rel[len(f.tbase)] == '/' && rel[:len(f.tbase)] == f.tbase:
				sub = rel[len(f.tbase)+1:]
			default:
				continue // not in this set's repository
			}
		}
		return f.tracked, sub
	}
	return nil, ""
}
