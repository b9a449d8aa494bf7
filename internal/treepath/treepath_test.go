package treepath

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/turnback/turnback/internal/model"
)

func TestClean(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want []string
		err  bool
	}{
		{[]string{"a", "./b/", "c/../d", "."}, []string{"a", "b", "d", ""}, false},
		{[]string{"a//b"}, []string{"a/b"}, false},
		{[]string{}, []string{}, false},
		{[]string{"a", ""}, nil, true},
		{[]string{"/etc"}, nil, true},
		{[]string{".."}, nil, true},
		{[]string{"a/../../b"}, nil, true},
		{[]string{"a\x00b"}, nil, true},
	} {
		got, err := Clean(c.in)
		if (err != nil) != c.err || !c.err && !reflect.DeepEqual(got, c.want) {
			t.Errorf("Clean(%q) = %q, %v; want %q (error: %v)", c.in, got, err, c.want, c.err)
		}
		if err != nil && !errors.Is(err, model.ErrPath) {
			t.Errorf("Clean(%q): %v does not wrap ErrPath", c.in, err)
		}
	}
	if _, err := Clean([]string{""}); !errors.Is(err, ErrEmpty) {
		t.Errorf("Clean of an empty path: %v, want ErrEmpty", err)
	}
}

func TestUnder(t *testing.T) {
	for _, c := range []struct {
		p, spec string
		want    bool
	}{
		{"a/b", "", true},
		{"a", "a", true},
		{"a/b", "a", true},
		{"ab", "a", false},
		{"a", "a/b", false},
		{"b/a", "a", false},
	} {
		if got := Under(c.p, c.spec); got != c.want {
			t.Errorf("Under(%q, %q) = %v, want %v", c.p, c.spec, got, c.want)
		}
	}
}

func TestSorted(t *testing.T) {
	in := []string{"b", "a", "b", "c", "a"}
	if got, want := SortedUnique(in), []string{"a", "b", "c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("SortedUnique = %q, want %q", got, want)
	}
	if in[0] != "b" || in[4] != "a" {
		t.Errorf("SortedUnique changed its argument: %q", in)
	}
	if got := SortedUnique(nil); len(got) != 0 {
		t.Errorf("SortedUnique(nil) = %q", got)
	}
	set := map[string]int{"z": 1, "y": 2, "": 3}
	if got, want := SortedKeys(set), []string{"", "y", "z"}; !reflect.DeepEqual(got, want) {
		t.Errorf("SortedKeys = %q, want %q", got, want)
	}
}

func TestRel(t *testing.T) {
	dir := filepath.FromSlash("/w/t")
	for _, c := range []struct {
		p    string
		want string
		ok   bool
	}{
		{"/w/t", "", true},
		{"/w/t/", "", true},
		{"/w/t/a/b", "a/b", true},
		{"/w/t/a/../b", "b", true},
		{"/w/tt", "", false},
		{"/w", "", false},
		{"/w/t/../u", "", false},
	} {
		got, ok := Rel(dir, filepath.FromSlash(c.p))
		if got != c.want || ok != c.ok {
			t.Errorf("Rel(%q, %q) = %q, %v; want %q, %v", dir, c.p, got, ok, c.want, c.ok)
		}
	}
}
