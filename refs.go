package turnback

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/zeebo/blake3"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/cas/ref"
	"github.com/turnback/turnback/manifest"
	"github.com/turnback/turnback/walker"
)

// Content by reference (see the package doc): a file over
// the size limit is hashed, not stored. After each capture, protectLarge
// looks for its content where it already sits (its repository's Git LFS
// objects, git's object database, or else a copy-on-write clone in the
// store) and records what it found in the store's reference table,
// keyed by the content's BLAKE3 (cas.PutRef; the record is a
// ref.Record). The tree entry itself is unchanged: it already carries
// the hash. Restores read such content through refSource, which checks
// it against that hash; gc keeps a record while a live tree holds its
// hash.

// cloneDir is where copy-on-write clones of large files are kept.
func (r *Repo) cloneDir() string { return filepath.Join(r.storeDir, "clones") }

// largeWant is walker.Options.LargeSums: the digests that can find a
// file's content where it sits (see ref.Finder.Want).
func (r *Repo) largeWant(f *ref.Finder) func(rel string) (bool, bool) {
	return func(rel string) (bool, bool) {
		w := f.Want(filepath.Join(r.workTree, filepath.FromSlash(rel)))
		return w.SHA256, w.GitOID
	}
}

// protectLarge finds or checks a reference for every file of the
// capture over the size limit, and lists in st.Unprotected those with
// none. f is the Finder that answered the capture's largeWant.
func (r *Repo) protectLarge(ctx context.Context, f *ref.Finder, st *walker.Stats) error {
	if r.readOnly {
		return nil // status/diff on a read-only store: nothing is recorded, so nothing to protect
	}
	cloneOK := true
	for i := range st.Uncaptured {
		u := &st.Uncaptured[i]
		if u.Kind != "file" || u.Hash.IsZero() {
			continue
		}
		ok, err := r.protect(ctx, f, u, &cloneOK)
		if err != nil {
			return err
		}
		if !ok {
			st.Unprotected = append(st.Unprotected, walker.Uncaptured{Path: u.Path, Kind: u.Kind, Size: u.Size,
				Reason: "over the size limit, and no Git LFS object, git blob or clone holds it"})
		}
	}
	return nil
}

// loadRef returns the reference record of content h, nil if none.
func (r *Repo) loadRef(ctx context.Context, h cas.Hash) (*ref.Record, error) {
	data, ok, err := r.store.GetRef(ctx, h)
	if err != nil || !ok {
		return nil, err
	}
	rec, err := ref.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%w: reference record of %s: %v", cas.ErrCorrupt, h.Short(), err)
	}
	return rec, nil
}

// protect makes sure content u has a usable reference, recording one if
// it finds one; it reports whether u is protected.
func (r *Repo) protect(ctx context.Context, f *ref.Finder, u *walker.Uncaptured, cloneOK *bool) (bool, error) {
	key := u.Hash.String()
	rec, err := r.loadRef(ctx, u.Hash)
	if err != nil {
		return false, err
	}
	changed := false
	if rec != nil {
		var live []ref.Ref
		for _, x := range rec.Refs {
			if f.Check(x, rec, key) == nil {
				live = append(live, x)
			}
		}
		if len(live) > 0 {
			return true, nil
		}
		changed = len(rec.Refs) > 0
		rec.Refs = nil
	} else {
		rec, changed = &ref.Record{Size: u.Size}, true
	}
	abs := filepath.Join(r.workTree, filepath.FromSlash(u.Path))
	want := f.Want(abs)
	if s := u.Sums; s != nil {
		if want.SHA256 && rec.SHA256 == ([32]byte{}) && s.SHA256 != ([32]byte{}) {
			rec.SHA256, changed = s.SHA256, true
		}
		if want.GitOID && rec.GitOID == ([20]byte{}) && s.GitOID != ([20]byte{}) {
			rec.GitOID, changed = s.GitOID, true
		}
	}
	need256 := want.SHA256 && rec.SHA256 == ([32]byte{})
	needGit := want.GitOID && rec.GitOID == ([20]byte{})
	if need256 || needGit {
		// Trusted from the stat cache, so not read with these digests
		// (a store from before references): read it again, once.
		sums, err := r.largeSums(ctx, u, need256, needGit)
		if err != nil {
			return false, err
		}
		if sums != nil {
			if need256 {
				rec.SHA256 = sums.SHA256
			}
			if needGit {
				rec.GitOID = sums.GitOID
			}
			changed = true
		}
	}
	// A repository that cannot be read (a damaged .git file, say) holds
	// nothing for us: the file is then cloned or unprotected.
	found, _ := f.Find(filepath.Dir(abs), rec)
	for _, x := range found {
		rec.Add(x)
		changed = true
	}
	if len(found) == 0 && *cloneOK {
		switch err := r.cloneLarge(ctx, u); {
		case err == nil:
			rec.Add(ref.Ref{Kind: ref.Clone, Dir: r.cloneDir()})
			changed = true
		case errors.Is(err, ref.ErrNoClone):
			*cloneOK = false
		}
	}
	if changed {
		if err := r.store.PutRef(ctx, u.Hash, rec.Encode()); err != nil {
			return false, err
		}
	}
	return len(rec.Refs) > 0, nil
}

// largeSums reads file u again for the digests asked for; nil (no error)
// when it no longer holds the content the capture hashed.
func (r *Repo) largeSums(ctx context.Context, u *walker.Uncaptured, s256, gitOID bool) (*walker.LargeSums, error) {
	root, err := os.OpenRoot(r.workTree)
	if err != nil {
		return nil, fmt.Errorf("turnback: open work tree: %w", err)
	}
	defer root.Close()
	fh, err := walker.OpenNoAtime(root, u.Path)
	if err != nil {
		return nil, nil
	}
	defer fh.Close()
	h, n, sums, err := walker.HashLarge(ctx, fh, u.Size, s256, gitOID)
	if err != nil || h != u.Hash || n != u.Size {
		return nil, ctx.Err()
	}
	return sums, nil
}

// cloneLarge clones file u into the clone directory and checks that the
// clone holds u's content (the file may have changed since it was
// hashed); a clone that does not is removed.
func (r *Repo) cloneLarge(ctx context.Context, u *walker.Uncaptured) error {
	root, err := os.OpenRoot(r.workTree)
	if err != nil {
		return fmt.Errorf("turnback: open work tree: %w", err)
	}
	defer root.Close()
	fh, err := walker.OpenNoAtime(root, u.Path)
	if err != nil {
		return err
	}
	defer fh.Close()
	name := u.Hash.String()
	if err := ref.CloneFile(r.cloneDir(), name, fh); err != nil {
		return err
	}
	path := ref.ClonePath(r.cloneDir(), name)
	if err := verifyFile(ctx, path, u.Hash, u.Size); err != nil {
		os.Remove(path)
		return err
	}
	return nil
}

func verifyFile(ctx context.Context, path string, h cas.Hash, size int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	got, n, err := cas.HashReader(ctx, f)
	if err != nil {
		return err
	}
	if got != h || n != size {
		return fmt.Errorf("%w: %s does not hold content %s", ref.ErrStale, path, h.Short())
	}
	return nil
}

// verifier passes content through, and at its end fails unless it had
// the expected size and hash; it closes the underlying reader at the end
// or on an error.
type verifier struct {
	rc   io.ReadCloser
	h    *blake3.Hasher
	want cas.Hash
	size int64
	n    int64
	what string
	done bool
	err  error
}

func newVerifier(rc io.ReadCloser, want cas.Hash, size int64, what string) *verifier {
	return &verifier{rc: rc, h: blake3.New(), want: want, size: size, what: what}
}

func (v *verifier) Read(p []byte) (int, error) {
	if v.done {
		return 0, v.err
	}
	n, err := v.rc.Read(p)
	if n > 0 {
		_, _ = v.h.Write(p[:n])
		v.n += int64(n)
		if v.n > v.size {
			return 0, v.finish(fmt.Errorf("%w: %s holds more than %d bytes", ref.ErrStale, v.what, v.size))
		}
	}
	if errors.Is(err, io.EOF) {
		var got cas.Hash
		copy(got[:], v.h.Sum(nil))
		if got != v.want || v.n != v.size {
			return n, v.finish(fmt.Errorf("%w: %s holds other content than %s", ref.ErrStale, v.what, v.want.Short()))
		}
		return n, v.finish(io.EOF)
	}
	if err != nil {
		return n, v.finish(err)
	}
	return n, nil
}

func (v *verifier) finish(err error) error {
	v.done, v.err = true, err
	v.rc.Close()
	return err
}

func (v *verifier) Close() error {
	if !v.done {
		v.finish(errors.New("closed"))
	}
	return nil
}

// sweepRefs deletes the reference records, and clones, of content no
// live tree holds (gc's mark set).
func (r *Repo) sweepRefs(ctx context.Context, live cas.LiveSet, dryRun bool) error {
	dead, err := r.store.SweepRefs(ctx, live, dryRun)
	if err != nil || dryRun {
		return err
	}
	for _, h := range dead {
		if err := os.Remove(ref.ClonePath(r.cloneDir(), h.String())); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("turnback: gc: %w", err)
		}
	}
	// Clones without a record (a capture killed between the clone and
	// the record) and temporary files of interrupted clones.
	ents, _ := os.ReadDir(r.cloneDir())
	for _, e := range ents {
		h, err := cas.ParseHash(e.Name())
		if err == nil {
			if _, ok := live[h]; ok {
				continue
			}
		}
		_ = os.Remove(filepath.Join(r.cloneDir(), e.Name()))
	}
	return nil
}

// countProtection adds uncaptured file e, once per content, to the
// reference or unprotected bytes of in.
func (r *Repo) countProtection(ctx context.Context, e *manifest.Entry, seen map[cas.Hash]bool, in *Info) error {
	if e.Kind != manifest.KindFile || e.Hash.IsZero() || seen[e.Hash] {
		return nil
	}
	seen[e.Hash] = true
	ok, err := r.hasRef(ctx, nil, e.Hash)
	if err != nil {
		return err
	}
	if ok {
		in.BytesByReference += e.Size
	} else {
		in.BytesUnprotected += e.Size
	}
	return nil
}

// hasRef reports whether a reference of content h still looks usable
// (present, right size; not read).
func (r *Repo) hasRef(ctx context.Context, f *ref.Finder, h cas.Hash) (bool, error) {
	rec, err := r.loadRef(ctx, h)
	if err != nil || rec == nil {
		return false, err
	}
	for _, x := range rec.Refs {
		if f.Check(x, rec, h.String()) == nil {
			return true, nil
		}
	}
	return false, nil
}
