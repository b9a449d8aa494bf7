package mcp

import (
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/manifest/treetest"
)

// testFolder makes the folder base/work with the store base/store and
// starts a turn named message. With files, it writes each (its name as
// its content) and ends the turn.
func testFolder(t *testing.T, message string, files ...string) (base, dir, store string) {
	t.Helper()
	ctx := t.Context()
	base = t.TempDir()
	dir, store = filepath.Join(base, "work"), filepath.Join(base, "store")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	repo, err := turnback.Open(ctx, dir, turnback.Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	if _, err := repo.Snap(ctx, message); err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		return base, dir, store
	}
	for _, n := range files {
		treetest.Put(t, dir, n, n)
	}
	if _, err := repo.End(ctx); err != nil {
		t.Fatal(err)
	}
	return base, dir, store
}

// testConnect starts a server with c on the SDK's in-memory transport
// and returns a client connected to it; both close when the test ends.
func testConnect(t *testing.T, c Config) *sdk.ClientSession {
	t.Helper()
	ctx := t.Context()
	srv, err := NewServer(c)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
