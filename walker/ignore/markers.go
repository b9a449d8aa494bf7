package ignore

import "bytes"

// MarkerNames returns every name Evidence may look up in a directory
// named name that Judge gave probe p: a caller that reads only some
// names of a directory reads these too, to reach the same verdict.
// Nil for ProbeNone.
func MarkerNames(name string, p Probe) []string {
	if p == ProbeNone {
		return nil
	}
	out := []string{CacheDirTag}
	for _, m := range anyMarkers {
		out = append(out, m.name)
	}
	if p == ProbeName {
		for _, m := range nameMarkers[name] {
			out = append(out, m.name)
		}
	}
	return out
}

// IsMarker reports whether Evidence may look up name in some directory:
// a change to it may change whether that directory counts as generated.
func IsMarker(name string) bool {
	if name == CacheDirTag {
		return true
	}
	for _, m := range anyMarkers {
		if m.name == name {
			return true
		}
	}
	for _, ms := range nameMarkers {
		for _, m := range ms {
			if m.name == name {
				return true
			}
		}
	}
	return false
}

// ContentDecides reports whether a marker named name counts only for
// what it holds (CACHEDIR.TAG's signature, a package manager's file as
// the tool writes it): a write to it may change the verdict too.
func ContentDecides(name string) bool {
	if name == CacheDirTag {
		return true
	}
	for _, m := range anyMarkers {
		if m.name == name && m.sig != nil {
			return true
		}
	}
	return false
}

// SigBytes is how much of a marker Signed reads.
const SigBytes = sigBytes

// Signed reports whether head, the first SigBytes of a regular file
// named name, passes that marker's signature (ContentDecides names).
func Signed(name string, head []byte) bool {
	if name == CacheDirTag {
		return bytes.HasPrefix(head, []byte(cacheDirSignature))
	}
	for _, m := range anyMarkers {
		if m.name == name && m.sig != nil {
			return m.sig(head)
		}
	}
	return false
}
