package remote

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/cas/s3/s3test"
	"github.com/turnback/turnback/manifest/treetest"
)

// TestRemoteBadSessionNames: push, pull and clone refuse a name the
// rule refuses before they talk to the remote, so no head key can
// leave heads/.
func TestRemoteBadSessionNames(t *testing.T) {
	srv := s3test.Start(t)
	ctx := t.Context()
	a, _, _ := rtSession(t, "s")
	c := srv.Client(t, "bucket-n", "p")
	for _, name := range []string{".", "..", `a\b`, "a\x01"} {
		if _, err := Push(ctx, a, c, PushOptions{Sessions: []string{name}}); !errors.Is(err, turnback.ErrBadSession) {
			t.Errorf("push %q: %v", name, err)
		}
		if _, err := Pull(ctx, a, c, PullOptions{Session: name}); !errors.Is(err, turnback.ErrBadSession) {
			t.Errorf("pull %q: %v", name, err)
		}
		dir := filepath.Join(t.TempDir(), "w")
		if _, err := Clone(ctx, c, srv.Config("bucket-n", "p"), dir, turnback.Options{Store: filepath.Join(t.TempDir(), "s"), Session: name}); !errors.Is(err, turnback.ErrBadSession) {
			t.Errorf("clone %q: %v", name, err)
		}
	}
	objs, err := c.List(ctx, "")
	if err != nil || len(objs) != 0 {
		t.Fatalf("the remote holds %v (%v)", objs, err)
	}
}

// remotePacks returns the pack and index objects of c's remote.
func remotePacks(t *testing.T, c *s3.Client) []string {
	t.Helper()
	objs, err := c.List(t.Context(), "packs/")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.Key)
	}
	return keys
}

// TestRemoteGCHostileHead: a head gc cannot read (a name that is not a
// head's, a session name the rule refuses, a body that does not
// decode) may name any pack: two gc runs a grace period apart delete
// nothing, each fails naming the object, and the remote still clones
// once the object is put back where it belongs.
func TestRemoteGCHostileHead(t *testing.T) {
	srv := s3test.Start(t)
	ctx := t.Context()
	a, states, _ := rtSession(t, "s")
	ts := fmt.Sprintf("%020d-%s.json", time.Now().UnixNano(), strings.Repeat("0", 32))
	for i, hostile := range []struct {
		key  string
		body func([]byte) []byte
	}{
		{"heads/" + ts, nil},
		{"heads/%2e%2e/" + ts, nil},
		{"heads/%2E/" + ts, nil},
		{"heads/s/x/" + ts, nil},
		{"heads/s/" + ts + ".tmp", nil},
		{"heads/s%5Cx/" + ts, nil},
		{"heads/s/" + ts, func(b []byte) []byte { return []byte(strings.Replace(string(b), `"session":"s"`, `"session":".."`, 1)) }},
		{"heads/s/" + ts, func(b []byte) []byte { return b[:len(b)/2] }},
	} {
		prefix := fmt.Sprintf("h%d", i)
		c := srv.Client(t, "bucket-h", prefix)
		if _, err := Push(ctx, a, c, PushOptions{PackSize: 1 << 20}); err != nil {
			t.Fatal(err)
		}
		heads, err := c.List(ctx, "heads/")
		if err != nil || len(heads) != 1 {
			t.Fatalf("%v %v", heads, err)
		}
		body, err := c.Get(ctx, c.Prefix+heads[0].Key, s3.MaxHead)
		if err != nil {
			t.Fatal(err)
		}
		// Only the hostile object names the session's packs now.
		if err := c.Remove(ctx, c.Prefix+heads[0].Key); err != nil {
			t.Fatal(err)
		}
		hb := body
		if hostile.body != nil {
			hb = hostile.body(body)
		}
		if err := c.Put(ctx, c.Prefix+hostile.key, hb); err != nil {
			t.Fatal(err)
		}
		packs := remotePacks(t, c)
		for run := range 2 {
			g, err := GC(ctx, c, GCOptions{Grace: time.Nanosecond})
			if !errors.Is(err, ErrRemoteHead) || !strings.Contains(err.Error(), c.Prefix+hostile.key) {
				t.Fatalf("%s: gc run %d: %+v %v", hostile.key, run, g, err)
			}
			time.Sleep(time.Millisecond)
		}
		if got := remotePacks(t, c); fmt.Sprint(got) != fmt.Sprint(packs) {
			t.Fatalf("%s: packs before gc %v, after %v", hostile.key, packs, got)
		}
		// Put back where it belongs, the head clones as before.
		if err := c.Remove(ctx, c.Prefix+hostile.key); err != nil {
			t.Fatal(err)
		}
		if err := c.Put(ctx, c.Prefix+heads[0].Key, body); err != nil {
			t.Fatal(err)
		}
		if _, err := GC(ctx, c, GCOptions{Grace: time.Nanosecond}); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if _, err := Clone(ctx, c, srv.Config("bucket-h", prefix), dir, turnback.Options{Store: filepath.Join(t.TempDir(), "s"), Session: "s"}); err != nil {
			t.Fatalf("%s: %v", hostile.key, err)
		}
		treetest.Equal(t, "clone", treetest.MustRead(t, dir), states[4])
	}
}

// TestRemoteCaseSessions: sessions "Foo" and "foo" pushed from two
// stores to one bucket have head keys that differ also under case
// folding (a store that folds case keeps them apart), and each clones
// as its own; a head under the old spelling (the name path-escaped
// only) is still found.
func TestRemoteCaseSessions(t *testing.T) {
	srv := s3test.Start(t)
	ctx := t.Context()
	up, upStates, _ := rtSession(t, "Foo")
	low, _, _ := rtSession(t, "foo")
	treetest.Put(t, low.WorkTree(), "only-low.txt", "low")
	if _, err := low.Snap(ctx, "low"); err != nil {
		t.Fatal(err)
	}
	lowState := treetest.MustRead(t, low.WorkTree())
	c := srv.Client(t, "bucket-c", "")
	for _, r := range []*turnback.Repo{up, low} {
		if _, err := Push(ctx, r, c, PushOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	heads, err := c.List(ctx, "heads/")
	if err != nil || len(heads) != 2 {
		t.Fatalf("%v %v", heads, err)
	}
	dirs := map[string]bool{}
	for _, h := range heads {
		dir, _, _ := strings.Cut(strings.TrimPrefix(h.Key, "heads/"), "/")
		dirs[strings.ToLower(dir)] = true
	}
	if len(dirs) != 2 {
		t.Fatalf("head folders fold to one: %v", heads)
	}
	clone := func(session string) treetest.Tree {
		dir := t.TempDir()
		if _, err := Clone(ctx, c, srv.Config("bucket-c", ""), dir, turnback.Options{Store: filepath.Join(t.TempDir(), "s"), Session: session}); err != nil {
			t.Fatalf("clone %s: %v", session, err)
		}
		return treetest.MustRead(t, dir)
	}
	treetest.Equal(t, "Foo", clone("Foo"), upStates[4])
	treetest.Equal(t, "foo", clone("foo"), lowState)
	// The old spelling: the head of "Foo" under heads/Foo/.
	for _, h := range heads {
		if s, _, _, _ := s3.ParseHeadKey(h.Key); s != "Foo" {
			continue
		}
		body, err := c.Get(ctx, c.Prefix+h.Key, s3.MaxHead)
		if err != nil {
			t.Fatal(err)
		}
		sum := cas.Sum(body)
		if err := c.Remove(ctx, c.Prefix+h.Key); err != nil {
			t.Fatal(err)
		}
		if err := c.Put(ctx, fmt.Sprintf("heads/Foo/%020d-%s.json", time.Now().UnixNano(), sum.String()[:32]), body); err != nil {
			t.Fatal(err)
		}
	}
	treetest.Equal(t, "Foo, old spelling", clone("Foo"), upStates[4])
	if v, err := Verify(ctx, c); err != nil || v.Heads != 2 {
		t.Fatalf("verify: %+v %v", v, err)
	}
}
