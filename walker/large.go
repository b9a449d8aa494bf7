package walker

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"errors"
	"hash"
	"io"
	"strconv"

	"github.com/zeebo/blake3"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
)

// LargeSums are the other digests of a file over the size limit,
// computed (as Options.LargeSums asks) in the same read as its BLAKE3,
// so that the caller can look for the content where it already sits
// without reading the file again: SHA256 is its Git LFS oid, GitOID its
// git blob id (SHA-1 of "blob <size>\x00" and the content). A digest
// not asked for is all zero.
type LargeSums struct {
	SHA256 [32]byte
	GitOID [20]byte
}

// hashLarge reads r (the file at rel) to its end and returns its BLAKE3,
// its length and the LargeSums Options.LargeSums asks for. size is the
// length fstat gave before the read; it goes into the git blob header,
// so when the read finds another length (the caller then reads the file
// again) the git id is wrong, never used.
func (c *capture) hashLarge(ctx context.Context, rel string, r io.Reader, size int64) (cas.Hash, int64, *LargeSums, error) {
	var s256, gitOID bool
	if c.opts.LargeSums != nil {
		s256, gitOID = c.opts.LargeSums(rel)
	}
	if !s256 && !gitOID {
		h, n, err := cas.HashReader(ctx, r)
		return h, n, nil, err
	}
	return HashLarge(ctx, r, size, s256, gitOID)
}

// HashLarge reads r to its end and returns its BLAKE3, its length and
// the LargeSums asked for (size goes into the git blob header; see
// hashLarge).
func HashLarge(ctx context.Context, r io.Reader, size int64, s256, gitOID bool) (cas.Hash, int64, *LargeSums, error) {
	b3 := blake3.New()
	hs := []hash.Hash{b3}
	var h256, h1 hash.Hash
	if s256 {
		h256 = sha256.New()
		hs = append(hs, h256)
	}
	if gitOID {
		h1 = sha1.New()
		_, _ = h1.Write([]byte("blob " + strconv.FormatInt(size, 10) + "\x00"))
		hs = append(hs, h1)
	}
	buf := make([]byte, 1<<20)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return cas.Hash{}, n, nil, err
		}
		k, err := r.Read(buf)
		if k > 0 {
			for _, h := range hs {
				_, _ = h.Write(buf[:k])
			}
			n += int64(k)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return cas.Hash{}, n, nil, err
		}
	}
	var out cas.Hash
	sums := &LargeSums{}
	copy(out[:], b3.Sum(nil))
	if h256 != nil {
		copy(sums.SHA256[:], h256.Sum(nil))
	}
	if h1 != nil {
		copy(sums.GitOID[:], h1.Sum(nil))
	}
	return out, n, sums, nil
}

// uncapturedLarge records the digests of a file over the size limit that was
// just read, for Stats.Uncaptured.
func (c *capture) uncapturedLarge(p string, e *manifest.Entry, sums *LargeSums) {
	c.mu.Lock()
	c.stats.Uncaptured = append(c.stats.Uncaptured, Uncaptured{Path: p, Kind: e.Kind.String(), Size: e.Size,
		Reason: c.overLimit(), Hash: e.Hash, Sums: sums})
	c.mu.Unlock()
}
