package manifest

import "strings"

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
