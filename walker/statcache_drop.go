package walker

import (
	"bytes"
	"context"
	"fmt"
)

// Drop deletes every record of the stat cache, so that the next capture
// reads and hashes every file again and stores what the store lacks: for
// a store that lost records (a damaged write log), where a record could
// vouch for content or a tree that is no longer there.
func (c *StatCache) Drop(ctx context.Context) error {
	var keys [][]byte
	err := c.b.Scan(ctx, []byte(cachePrefix), true, func(k, _ []byte) error {
		keys = append(keys, bytes.Clone(k))
		return nil
	})
	if err != nil {
		return fmt.Errorf("walker: drop the stat cache: %w", err)
	}
	if err := c.deleteKeys(ctx, keys); err != nil {
		return fmt.Errorf("walker: drop the stat cache: %w", err)
	}
	return nil
}

// deleteKeys deletes the records of keys, a thousand at a time.
func (c *StatCache) deleteKeys(ctx context.Context, keys [][]byte) error {
	for len(keys) > 0 {
		n := min(len(keys), 1000)
		if err := c.b.Delete(ctx, keys[:n]...); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}
