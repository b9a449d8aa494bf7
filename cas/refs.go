package cas

import (
	"bytes"
	"context"
	"errors"
)

// prefixRef keys the reference table: content hash -> a record, opaque
// to this package (package cas/ref encodes it), saying where content
// the store does not hold (a file over the size limit) can be found.
var prefixRef = []byte("r/")

// RefKey returns the backend key of the reference record of content h.
func RefKey(h Hash) []byte { return append(bytes.Clone(prefixRef), h[:]...) }

// PutRef records data as the reference record of content h, replacing
// any earlier one. It is written at once (Set), not through a batch.
func (s *Store) PutRef(ctx context.Context, h Hash, data []byte) error {
	return s.b.Set(ctx, Entry{Key: RefKey(h), Value: data})
}

// GetRef returns the reference record of content h; ok is false when
// there is none.
func (s *Store) GetRef(ctx context.Context, h Hash) (data []byte, ok bool, err error) {
	data, err = s.b.Get(ctx, RefKey(h))
	if errors.Is(err, ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// SweepRefs deletes the reference records of content not in live and
// returns the hashes it deleted (or, with dryRun, would delete).
func (s *Store) SweepRefs(ctx context.Context, live LiveSet, dryRun bool) ([]Hash, error) {
	var dead []Hash
	err := s.b.Scan(ctx, prefixRef, true, func(k, _ []byte) error {
		if len(k) != len(prefixRef)+HashSize {
			return nil
		}
		var h Hash
		copy(h[:], k[len(prefixRef):])
		if _, ok := live[h]; !ok {
			dead = append(dead, h)
		}
		return nil
	})
	if err != nil || dryRun || len(dead) == 0 {
		return dead, err
	}
	keys := make([][]byte, len(dead))
	for i, h := range dead {
		keys[i] = RefKey(h)
	}
	const batch = 500
	for i := 0; i < len(keys); i += batch {
		if err := s.b.Delete(ctx, keys[i:min(i+batch, len(keys))]...); err != nil {
			return nil, err
		}
	}
	return dead, s.b.Sync()
}
