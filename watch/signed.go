package watch

import (
	"io"
	"os"

	"github.com/turnback/turnback/walker/ignore"
)

// signFlipped reads the marker at rel (named name, one whose content
// decides: ignore.ContentDecides) and reports whether its signature
// verdict is not the one seen last. Unknown counts as changed. A write
// that leaves the verdict as it was cannot change whether its directory
// is skipped, so it needs no rescan of that directory.
func (w *Watcher) signFlipped(rel, name string) bool {
	now := w.signedNow(rel, name)
	was, ok := w.signed[rel]
	w.signed[rel] = now
	return !ok || was != now
}

// signedNow reports whether rel is a regular file whose first
// ignore.SigBytes pass the signature of a marker named name.
func (w *Watcher) signedNow(rel, name string) bool {
	abs := w.abs(rel)
	fi, err := os.Lstat(abs)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(abs)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, ignore.SigBytes)
	n, _ := io.ReadFull(f, head)
	return ignore.Signed(name, head[:n])
}
