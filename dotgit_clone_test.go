package turnback_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas/s3/s3test"
	"github.com/turnback/turnback/internal/remote"
)

// TestDotGitHostileClone: a session on a remote whose newest state holds
// ".GIT/config" (pushed from a crafted store) is not cloned: the clone
// fails with ErrDotGit naming the path and the folder stays empty.
func TestDotGitHostileClone(t *testing.T) {
	t.Parallel()
	srv := s3test.Start(t)
	ctx := t.Context()
	r, _ := turnback.HostileSession(t, ".GIT")
	if _, err := remote.Push(ctx, r, srv.Client(t, "bucket", "x"), remote.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "clone")
	_, err := remote.Clone(context.WithoutCancel(ctx), srv.Client(t, "bucket", "x"), srv.Config("bucket", "x"), dir,
		turnback.Options{Store: filepath.Join(t.TempDir(), "store"), Session: turnback.DefaultSession})
	if !errors.Is(err, turnback.ErrDotGit) || !strings.Contains(err.Error(), ".GIT") {
		t.Errorf("clone of a session holding .GIT/config: %v; want ErrDotGit naming it", err)
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		t.Errorf("the clone wrote into the folder: %v", ents)
	}
}
