package manifest_test

import (
	"io/fs"
	"testing"

	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/manifest/treetest"
)

func TestModeConversions(t *testing.T) {
	tests := []struct {
		fm   fs.FileMode
		bits uint32
	}{
		{0, 0},
		{0o644, 0o644},
		{0o755 | fs.ModeSetuid, 0o4755},
		{0o775 | fs.ModeSetgid, 0o2775},
		{0o777 | fs.ModeSticky, 0o1777},
		{0o7 | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky, 0o7007},
	}
	for _, tt := range tests {
		if got := manifest.ModeOf(tt.fm); got != tt.bits {
			t.Errorf("ModeOf(%v) = %#o, want %#o", tt.fm, got, tt.bits)
		}
		if got := manifest.FileMode(tt.bits); got != tt.fm {
			t.Errorf("FileMode(%#o) = %v, want %v", tt.bits, got, tt.fm)
		}
		// Type bits are not mode bits.
		if got := manifest.ModeOf(tt.fm | fs.ModeDir | fs.ModeSymlink); got != tt.bits {
			t.Errorf("ModeOf(%v|dir) = %#o, want %#o", tt.fm, got, tt.bits)
		}
	}
	if got := manifest.FileMode(0o17777); got != manifest.FileMode(0o7777) {
		t.Errorf("FileMode keeps bits above ModeMask: %v", got)
	}
	for b := uint32(0); b <= manifest.ModeMask; b++ {
		if got := manifest.ModeOf(manifest.FileMode(b)); got != b {
			t.Fatalf("ModeOf(FileMode(%#o)) = %#o", b, got)
		}
	}
	if manifest.ModePerm|manifest.ModeSpecial != manifest.ModeMask {
		t.Errorf("ModePerm|ModeSpecial = %#o, want ModeMask", manifest.ModePerm|manifest.ModeSpecial)
	}
	if treetest.ModeMask != manifest.FileModeMask {
		t.Errorf("treetest.ModeMask = %v, manifest.FileModeMask = %v", treetest.ModeMask, manifest.FileModeMask)
	}
}
