package manifest

import (
	"context"
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
)

func walkTree(t *testing.T) (*memStore, cas.Hash) {
	s := newStore()
	inner := s.put(t, file("deep.txt", "d"), link("up", "../.."))
	root := s.put(t,
		dir("a", s.put(t, file("x", "x"), dir("y", inner), file("z", "z"))),
		file("a.txt", "a"),
		uncDir("big", 1000),
		dir("empty", EmptyTreeHash()),
		link("l", "/etc/passwd"),
		uncFile("movie.mkv", 1<<33),
	)
	return s, root
}

func walkPaths(t *testing.T, l Loader, root cas.Hash, fn func(string, *Entry) error) ([]string, error) {
	t.Helper()
	var got []string
	err := Walk(context.Background(), l, root, func(p string, e *Entry) error {
		if !strings.HasSuffix(p, e.Name) {
			t.Errorf("path %q for entry %q", p, e.Name)
		}
		got = append(got, p)
		if fn != nil {
			return fn(p, e)
		}
		return nil
	})
	return got, err
}

func TestWalk(t *testing.T) {
	s, root := walkTree(t)
	got, err := walkPaths(t, s, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a", "a/x", "a/y", "a/y/deep.txt", "a/y/up", "a/z", "a.txt", "big", "empty", "l", "movie.mkv"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("walk %q\nwant %q", got, want)
	}
	if n := s.calls[EmptyTreeHash()]; n != 0 {
		t.Fatalf("empty tree loaded %d times", n)
	}

	// Scribbling on the entry does not change the walk.
	again, err := walkPaths(t, s, root, func(_ string, e *Entry) error {
		e.Uncaptured, e.Hash, e.Kind = true, cas.Hash{}, KindFile
		return nil
	})
	if err != nil || !reflect.DeepEqual(again, want) {
		t.Fatalf("walk after scribbling: %q, %v", again, err)
	}

	s.reset()
	if got, err := walkPaths(t, s, cas.Hash{}, nil); err != nil || len(got) != 0 || s.loads() != 0 {
		t.Fatalf("walk of zero root: %q, %v, %d loads", got, err, s.loads())
	}
}

func TestWalkSkip(t *testing.T) {
	s, root := walkTree(t)
	cases := []struct {
		at   string
		err  error
		want []string
	}{
		{"a", fs.SkipDir, []string{"a", "a.txt", "big", "empty", "l", "movie.mkv"}},
		{"a/y", fs.SkipDir, []string{"a", "a/x", "a/y", "a/z", "a.txt", "big", "empty", "l", "movie.mkv"}},
		{"a/x", fs.SkipDir, []string{"a", "a/x", "a.txt", "big", "empty", "l", "movie.mkv"}},
		{"a/y/deep.txt", fs.SkipDir, []string{"a", "a/x", "a/y", "a/y/deep.txt", "a/z", "a.txt", "big", "empty", "l", "movie.mkv"}},
		{"big", fs.SkipDir, []string{"a", "a/x", "a/y", "a/y/deep.txt", "a/y/up", "a/z", "a.txt", "big", "empty", "l", "movie.mkv"}},
		{"a.txt", fs.SkipDir, []string{"a", "a/x", "a/y", "a/y/deep.txt", "a/y/up", "a/z", "a.txt"}},
		{"a/y/deep.txt", fs.SkipAll, []string{"a", "a/x", "a/y", "a/y/deep.txt"}},
	}
	for _, c := range cases {
		got, err := walkPaths(t, s, root, func(p string, _ *Entry) error {
			if p == c.at {
				return c.err
			}
			return nil
		})
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v at %s: %q, %v\nwant %q", c.err, c.at, got, err, c.want)
		}
	}
}

func TestWalkErrors(t *testing.T) {
	s, root := walkTree(t)
	stop := errors.New("stop")
	got, err := walkPaths(t, s, root, func(p string, _ *Entry) error {
		if p == "a/y/up" {
			return stop
		}
		return nil
	})
	if err != stop || len(got) != 5 {
		t.Fatalf("%q, %v", got, err)
	}

	rt, _ := s.LoadTree(context.Background(), root)
	a, _ := rt.Lookup("a")
	boom := errors.New("boom")
	s.fail[a.Hash] = boom
	_, err = walkPaths(t, s, root, nil)
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), `manifest: load tree of "a": `) {
		t.Fatalf("err = %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Walk(ctx, s, root, func(string, *Entry) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled walk: %v", err)
	}
}
