//go:build unix

package turnback_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestApplyPulledRulesOwnersLocal (review43): as
// TestApplyPulledOwnersLocal, and the pulled turn also rewrites
// .gitignore, so the apply captures its result again (settle.go). The
// recapture reads the folder's owners, but keepWritten takes each
// path the apply wrote as the pulled state has it (the remote's owner,
// root) since the capture differs there, and the session's last state
// is no longer the one localizeLast is asked to localize: status then
// lists every applied path as an owner change the folder did not make.
func TestApplyPulledRulesOwnersLocal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	const user = 4321
	f, _ := pullOwned(t, "bucket-apply-rules-owner", user, func(wa string) {
		must(t, os.WriteFile(filepath.Join(wa, "turn.txt"), []byte("six"), 0o644))
		must(t, os.WriteFile(filepath.Join(wa, ".gitignore"), []byte("*.log\n"), 0o644))
		must(t, os.MkdirAll(filepath.Join(wa, "sub"), 0o755))
		must(t, os.WriteFile(filepath.Join(wa, "sub", "new.txt"), []byte("new\n"), 0o644))
	})
	ctx := t.Context()
	if res, err := f.b.ApplyPulled(ctx, "", false); err != nil {
		t.Fatalf("apply: %+v %v", res, err)
	}
	if st, err := f.b.Status(ctx); err != nil || len(st.Changes) != 0 {
		t.Fatalf("status after the apply: %v; changes %+v", err, st.Changes)
	}
}
