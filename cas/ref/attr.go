package ref

import (
	"path"
	"path/filepath"
	"strings"
)

// Wanted says which digests can find a file's content: SHA256 where Git
// LFS keeps it, GitOID where git does.
type Wanted struct {
	SHA256, GitOID bool
}

// Want says which digests are worth computing for a file over the size
// limit at the absolute path p: none outside a git repository (only a
// clone can protect it there); the LFS oid for a file the repository's
// top-level .gitattributes gives filter=lfs (git then holds only a
// pointer); the git blob id otherwise.
func (f *Finder) Want(p string) Wanted {
	repo, err := f.Repo(filepath.Dir(p))
	if err != nil || repo == nil {
		return Wanted{}
	}
	rel, err := filepath.Rel(repo.WorkTree, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return Wanted{}
	}
	if f.lfsTracked(repo, filepath.ToSlash(rel)) {
		return Wanted{SHA256: true}
	}
	return Wanted{GitOID: true}
}

// lfsTracked matches rel (slash-separated, relative to the repository's
// work tree) against the filter=lfs patterns of its top-level
// .gitattributes, as git lfs track writes them. Nested .gitattributes
// files and macros are not read: such files get the git blob id, and
// stay unprotected unless a clone protects them.
func (f *Finder) lfsTracked(repo *Repo, rel string) bool {
	f.mu.Lock()
	pats, ok := f.attrs[repo.WorkTree]
	f.mu.Unlock()
	if !ok {
		pats = lfsPatterns(filepath.Join(repo.WorkTree, ".gitattributes"))
		f.mu.Lock()
		f.attrs[repo.WorkTree] = pats
		f.mu.Unlock()
	}
	tracked := false
	for _, p := range pats {
		neg := strings.HasPrefix(p, "!")
		p = strings.TrimPrefix(p, "!")
		if attrMatch(p, rel) {
			tracked = !neg
		}
	}
	return tracked
}

// lfsPatterns returns the patterns of a .gitattributes file that set
// (or, prefixed with "!", unset) filter=lfs, in order.
func lfsPatterns(name string) []string {
	data, err := readSmall(name)
	if err != nil {
		return nil
	}
	var pats []string
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		for _, a := range fields[1:] {
			switch a {
			case "filter=lfs":
				pats = append(pats, fields[0])
			case "-filter", "!filter":
				pats = append(pats, "!"+fields[0])
			default:
				if strings.HasPrefix(a, "filter=") {
					pats = append(pats, "!"+fields[0])
				}
			}
		}
	}
	return pats
}

// attrMatch matches a .gitattributes pattern: without a slash against
// the base name, with one against the whole path ("**/" prefixes and
// "/**" suffixes understood).
func attrMatch(pat, rel string) bool {
	if !strings.Contains(strings.TrimSuffix(pat, "/"), "/") {
		ok, _ := path.Match(pat, path.Base(rel))
		return ok
	}
	pat = strings.TrimPrefix(pat, "/")
	if rest, ok := strings.CutPrefix(pat, "**/"); ok {
		for r := rel; ; {
			if m, _ := path.Match(rest, r); m {
				return true
			}
			i := strings.IndexByte(r, '/')
			if i < 0 {
				return false
			}
			r = r[i+1:]
		}
	}
	if dir, ok := strings.CutSuffix(pat, "/**"); ok {
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			if m, _ := path.Match(dir, d); m {
				return true
			}
		}
		return false
	}
	ok, _ := path.Match(pat, rel)
	return ok
}
