package manifest

import "strings"

// Paths inside a tree are slash-separated and relative to the tree's
// root, which is "" (never "." or "/"): "a", "a/b". JoinPath, SplitPath,
// ParentPath and DisplayPath are the one spelling of the operations on
// them; they never clean, so a path is valid exactly when each of its
// components is a valid entry name.

// JoinPath returns the path of name inside directory dir ("" for the
// root): "a/b" for ("a", "b"), "b" for ("", "b").
func JoinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// SplitPath splits p after its last slash: the directory holding it (""
// for a top-level name) and its last component. JoinPath(SplitPath(p))
// is p for every p without a leading slash.
func SplitPath(p string) (dir, name string) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", p
	}
	return p[:i], p[i+1:]
}

// ParentPath returns the directory holding p: "a" for "a/b", "" for a
// top-level name (and for the root itself).
func ParentPath(p string) string {
	dir, _ := SplitPath(p)
	return dir
}

// DisplayPath returns p for messages: "." for the root, p otherwise.
func DisplayPath(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// ComparePaths orders slash-separated paths as Walk visits them:
// component by component, so a directory sorts right before everything
// inside it ("a", "a/b", "a.txt"). The result is negative, zero or
// positive, as with strings.Compare.
func ComparePaths(a, b string) int {
	for {
		ai, bi := strings.IndexByte(a, '/'), strings.IndexByte(b, '/')
		ah, bh := a, b
		if ai >= 0 {
			ah = a[:ai]
		}
		if bi >= 0 {
			bh = b[:bi]
		}
		if c := strings.Compare(ah, bh); c != 0 {
			return c
		}
		if ai < 0 || bi < 0 {
			return (ai + 1) - (bi + 1) // shorter (the ancestor) first
		}
		a, b = a[ai+1:], b[bi+1:]
	}
}
