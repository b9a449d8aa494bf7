package walker

// isStagingName reports whether name is one of a restore's own temporary
// names (see package restore: ".turnback-<12 hex>-<n>" for a staged file,
// "-l<n>" for a new symlink, "-o<n>" for what a removal holds aside).
// Capture never records them: they exist only while a restore runs, or
// until its recovery removes them.
func isStagingName(name string) bool {
	const prefix = ".turnback-"
	if len(name) < len(prefix)+12+2 || name[:len(prefix)] != prefix {
		return false
	}
	rest := name[len(prefix):]
	for i := 0; i < 12; i++ {
		if c := rest[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	if rest[12] != '-' {
		return false
	}
	tail := rest[13:]
	if tail != "" && (tail[0] == 'l' || tail[0] == 'o') {
		tail = tail[1:]
	}
	if tail == "" {
		return false
	}
	for i := 0; i < len(tail); i++ {
		if tail[i] < '0' || tail[i] > '9' {
			return false
		}
	}
	return true
}
