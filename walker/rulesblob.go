package walker

import (
	"context"
	"fmt"
)

// keepRules stores content, what the capture applied of an ignore file
// it skipped (rulesContent), as a blob for Ignored.Rules: the state's
// record names it, so its size never weighs on a record. "" for nil.
func (c *capture) keepRules(ctx context.Context, content []byte) (string, error) {
	if content == nil {
		return "", nil
	}
	h, err := c.w.PutBlob(ctx, content)
	if err != nil {
		return "", fmt.Errorf("walker: keep the rules of an ignored ignore file: %w", err)
	}
	return h.String(), nil
}
