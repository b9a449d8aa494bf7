package turnback

import (
	"fmt"
	"testing"

	"github.com/turnback/turnback/internal/umask"
	"github.com/turnback/turnback/manifest"
)

// TestForeignTarget: what a restore writes for an entry of a pulled
// state, as root and not, for several umasks. Never group or other
// write nor a bit the umask clears, never the remote's owner, never
// more than the remote recorded; a symlink's mode is left as recorded.
func TestForeignTarget(t *testing.T) {
	oldMask, oldOwners := foreignUmask, ownersMatter
	defer func() { foreignUmask, ownersMatter = oldMask, oldOwners }()
	file := &manifest.Entry{Name: "f", Kind: manifest.KindFile, Mode: 0o6777, Owned: true, UID: 7, GID: 8}
	dir := &manifest.Entry{Name: "d", Kind: manifest.KindDir, Mode: 0o1777, Owned: true}
	link := &manifest.Entry{Name: "l", Kind: manifest.KindSymlink, Mode: 0o777}
	fifo := &manifest.Entry{Name: "p", Kind: manifest.KindFIFO, Mode: 0o640}
	for _, c := range []struct {
		root  bool
		umask uint32
		e     *manifest.Entry
		want  uint32
	}{
		{true, 0o022, file, 0o6755}, // as root the restore leaves special bits off (unowned)
		{false, 0o022, file, 0o755},
		{false, 0o002, file, 0o755}, // never group or other write
		{false, 0, file, 0o755},
		{false, 0o027, file, 0o750},
		{false, 0o077, file, 0o700},
		{true, 0o022, dir, 0o1755},
		{false, 0o002, dir, 0o755},
		{false, 0o077, link, 0o777},
		{false, 0o022, fifo, 0o640},
		{false, 0o027, fifo, 0o640},
		{false, 0o077, fifo, 0o600},
	} {
		t.Run(fmt.Sprintf("%v-%03o-%s", c.root, c.umask, c.e.Name), func(t *testing.T) {
			foreignUmask, ownersMatter = umask.Pulled(c.umask), c.root
			before := *c.e
			got := foreignTarget(c.e)
			if got.Mode != c.want || got.Owned || got.UID != 0 || got.GID != 0 {
				t.Errorf("foreignTarget(%+v) = %+v, want mode %04o, no owner", before, *got, c.want)
			}
			if *c.e != before {
				t.Errorf("foreignTarget changed its argument: %+v", *c.e)
			}
			if got.Mode&^c.e.Mode != 0 {
				t.Errorf("foreignTarget added bits: %04o from %04o", got.Mode, c.e.Mode)
			}
		})
	}
	if foreignTarget(nil) != nil {
		t.Error("foreignTarget(nil) is not nil")
	}
}
