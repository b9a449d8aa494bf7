//go:build !unix

package restore

import "testing"

// unprivileged: no users to switch to here; the body runs as is.
func unprivileged(t *testing.T) (done bool) { return false }
