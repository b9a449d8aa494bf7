//go:build linux

package trees

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/turnback/turnback/bench/truth"
)

// dirMode is a copied directory's final mode.
type dirMode struct {
	rel  string
	perm fs.FileMode
}

// copyTree copies src to dst (regular files, directories, symlinks; other
// kinds skipped) and returns dst's ground truth, hashing while copying.
func copyTree(src, dst string) (*truth.State, error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return nil, err
	}
	ref := truth.New()
	var mu sync.Mutex
	var dirs []dirMode
	err := truth.Walk(src, 0, func(rel string, fi fs.FileInfo) error {
		from, to := filepath.Join(src, filepath.FromSlash(rel)), filepath.Join(dst, filepath.FromSlash(rel))
		if fi.IsDir() {
			// Writable while copying; the final mode is set afterwards.
			mu.Lock()
			dirs = append(dirs, dirMode{rel, fi.Mode().Perm() | 0o700})
			mu.Unlock()
			return os.MkdirAll(to, 0o755)
		}
		if fi.Mode()&fs.ModeSymlink == 0 && !fi.Mode().IsRegular() {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		var sum [16]byte
		target, err := "", error(nil)
		if fi.Mode().IsRegular() {
			sum, err = copyFile(from, to, fi.Mode().Perm()|0o600)
		} else if target, err = os.Readlink(from); err == nil {
			err = os.Symlink(target, to)
		}
		if err != nil {
			return err
		}
		return ref.AddStat(rel, to, sum, target)
	})
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		p := filepath.Join(dst, filepath.FromSlash(d.rel))
		if err := os.Chmod(p, d.perm); err != nil {
			return nil, err
		}
		if err := ref.AddStat(d.rel, p, [16]byte{}, ""); err != nil {
			return nil, err
		}
	}
	ref.Index()
	return ref, nil
}

func copyFile(from, to string, perm fs.FileMode) ([16]byte, error) {
	in, err := os.Open(from)
	if err != nil {
		return [16]byte{}, err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return [16]byte{}, err
	}
	h := truth.NewHash()
	_, err = io.Copy(io.MultiWriter(out, h), in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(to, perm)
	}
	return truth.Digest(h), err
}
