//go:build unix

package turnback

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/turnback/turnback/internal/storedir"
)

// TestAdoptAsRootKeepsOwner: root adopting a user's store (sudo with the
// user's HOME) leaves the notes it writes owned by the store's owner.
// Before, they were root's, mode 0600: every command of the user then
// failed to read them.
func TestAdoptAsRootKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	oldWT, newWT, oldStore := adoptWorld(t)
	const nobody = 65534
	err := filepath.Walk(oldStore, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Adopt(context.Background(), newWT, oldWT, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{storedir.WorkTreeNote, storedir.MarkerName} {
		fi, err := os.Lstat(filepath.Join(res.Store, n))
		if err != nil {
			t.Fatal(err)
		}
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != nobody || st.Gid != nobody {
			t.Errorf("%s is owned by %d:%d, want the store's owner %d", n, st.Uid, st.Gid, nobody)
		}
	}
}
