package ignore

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
