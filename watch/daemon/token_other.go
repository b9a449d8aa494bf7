//go:build !unix

package daemon

// checkTokenPrivate: file modes say nothing here; the store directory's
// ACL (the user's profile) keeps the token private.
func checkTokenPrivate(storeDir, p string) error { return nil }
