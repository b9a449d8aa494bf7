package remote

import (
	"strings"
	"testing"

	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/cas/s3/s3test"
)

// TestRemoteHeadNoLocalPath: what a push writes names neither the work
// tree's absolute path nor the store's (everyone with access to the
// bucket reads heads); a head from before, which does, still decodes
// and clones.
func TestRemoteHeadNoLocalPath(t *testing.T) {
	srv := s3test.Start(t)
	ctx := t.Context()
	a, _, _ := rtSession(t, "s")
	c := srv.Client(t, "bucket-priv", "p")
	if _, err := Push(ctx, a, c, PushOptions{}); err != nil {
		t.Fatal(err)
	}
	objs, err := c.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	heads := 0
	for _, o := range objs {
		data, err := c.Get(ctx, c.Prefix+o.Key, s3.MaxHead)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{a.WorkTree(), a.StoreDir()} {
			if strings.Contains(string(data), p) {
				t.Errorf("%s holds %s", o.Key, p)
			}
		}
		if strings.HasPrefix(o.Key, "heads/") {
			heads++
			if strings.Contains(string(data), `"store"`) {
				t.Errorf("%s has a store field: %.200s", o.Key, data)
			}
			old := strings.Replace(string(data), `"session":"s"`, `"session":"s","store":"/home/someone/work"`, 1)
			if h, err := s3.DecodeHead([]byte(old)); err != nil || h.Store != "/home/someone/work" {
				t.Errorf("an old head: %+v %v", h, err)
			}
		}
	}
	if heads != 1 {
		t.Fatalf("%d heads", heads)
	}
}
