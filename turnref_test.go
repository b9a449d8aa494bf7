package turnback

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// TestParseTurnRef: what is a turn reference, what is malformed, and
// that String writes it back.
func TestParseTurnRef(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in     string
		ok     bool
		want   TurnRef
		badWhy string // "": valid
	}{
		{in: "@1", ok: true, want: TurnRef{N: 1}},
		{in: "@12^", ok: true, want: TurnRef{N: 12, Before: true}},
		{in: " @3 ", ok: true, badWhy: `" @3 " is not a turn reference: remove the spaces around it (@3)`},
		{in: "@3\t", ok: true, badWhy: "remove the spaces"},
		{in: "\n@3^", ok: true, badWhy: "(@3^)"},
		{in: " @x", ok: true, badWhy: "remove the spaces around it (@x)"},
		{in: "@007", ok: true, want: TurnRef{N: 7}},
		{in: "abcd", ok: false},
		{in: "", ok: false},
		{in: "1@", ok: false},
		{in: "@", ok: true, badWhy: "write @N"},
		{in: "@^", ok: true, badWhy: "write @N"},
		{in: "@0", ok: true, badWhy: "numbered from 1"},
		{in: "@0^", ok: true, badWhy: "numbered from 1"},
		{in: "@-1", ok: true, badWhy: "turn number"},
		{in: "@+1", ok: true, badWhy: "turn number"},
		{in: "@1^^", ok: true, badWhy: "only one ^"},
		{in: "@1~1", ok: true, badWhy: "turn number"},
		{in: "@abc", ok: true, badWhy: "turn number"},
		{in: "@1 2", ok: true, badWhy: "turn number"},
		{in: "@99999999999999999999", ok: true, badWhy: "too large"},
		{in: "@\x00", ok: true, badWhy: "turn number"},
	} {
		ref, ok, err := ParseTurnRef(c.in)
		switch {
		case ok != c.ok:
			t.Errorf("ParseTurnRef(%q): ok %v, want %v", c.in, ok, c.ok)
		case c.badWhy != "" && (!errors.Is(err, ErrBadRef) || !strings.Contains(err.Error(), c.badWhy)):
			t.Errorf("ParseTurnRef(%q): %v, want ErrBadRef saying %q", c.in, err, c.badWhy)
		case c.badWhy == "" && (err != nil || ref != c.want):
			t.Errorf("ParseTurnRef(%q) = %+v, %v; want %+v", c.in, ref, err, c.want)
		case c.badWhy == "" && c.ok && ref.String() != "@"+strconv.Itoa(c.want.N)+map[bool]string{true: "^"}[c.want.Before]:
			t.Errorf("%+v.String() = %q", ref, ref.String())
		}
	}
}

// FuzzParseTurnRef: never panics; a string is meant as a reference
// exactly when it starts with @; a valid one has N >= 1 and reads back
// the same from its String; a malformed one is ErrBadRef. parseID takes
// only 4 to 64 hex digits (else ErrBadRef or ErrUnknownID).
func FuzzParseTurnRef(f *testing.F) {
	for _, s := range []string{"@1", "@2^", "@", "@0", "@-1", "@1^^", "@abc", "@99999999999999999999", "2", "abcd", " @3 ", "@\xff", " abcd", "abcd\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ref, ok, err := ParseTurnRef(s)
		if ok != strings.HasPrefix(strings.TrimSpace(s), "@") {
			t.Fatalf("ParseTurnRef(%q): ok %v", s, ok)
		}
		switch {
		case !ok && err != nil:
			t.Fatalf("ParseTurnRef(%q): not a reference, yet %v", s, err)
		case err != nil:
			if !errors.Is(err, ErrBadRef) || ref != (TurnRef{}) {
				t.Fatalf("ParseTurnRef(%q) = %+v, %v; want ErrBadRef", s, ref, err)
			}
		case ok:
			if s != strings.TrimSpace(s) {
				t.Fatalf("ParseTurnRef(%q) = %+v: spaces around it taken", s, ref)
			}
			back, ok2, err2 := ParseTurnRef(ref.String())
			if ref.N < 1 || !ok2 || err2 != nil || back != ref {
				t.Fatalf("ParseTurnRef(%q) = %+v; its String %q reads back as %+v, %v, %v", s, ref, ref.String(), back, ok2, err2)
			}
		}
		id, err := parseID(s)
		switch {
		case err != nil && !errors.Is(err, ErrBadRef) && !errors.Is(err, ErrUnknownID):
			t.Fatalf("parseID(%q): %v, want ErrBadRef or ErrUnknownID", s, err)
		case err != nil:
		case len(id) < MinIDPrefix || len(id) > 2*cas.HashSize || strings.Trim(id, "0123456789abcdef") != "" || s != strings.TrimSpace(s):
			t.Fatalf("parseID(%q) = %q", s, id)
		}
	})
}

// TestResolveRules: a prefix shorter than MinIDPrefix is refused even
// when it is unique, one of MinIDPrefix digits that two snapshots share
// is ambiguous, and a turn reference resolves in the Repo's own session.
func TestResolveRules(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	base := t.TempDir()
	work := filepath.Join(base, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, work, Options{Store: filepath.Join(base, "store")})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	twin1, _ := cas.ParseHash("abcd" + strings.Repeat("1", 60))
	twin2, _ := cas.ParseHash("abcd" + strings.Repeat("2", 60))
	lone, _ := cas.ParseHash("7" + strings.Repeat("3", 63))
	if err := r.commit(ctx, []cas.Entry{model.SnapshotEntry(twin1, model.KindSnap, 0, 0, nil), model.SnapshotEntry(twin2, model.KindSnap, 0, 0, nil), model.SnapshotEntry(lone, model.KindSnap, 0, 0, nil)}, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id   string
		want cas.Hash
		err  error
	}{
		{"7", cas.Hash{}, ErrShortID},
		{"733", cas.Hash{}, ErrShortID},
		{"7333", lone, nil},
		{"ABCD1", twin1, nil},
		{"abcd", cas.Hash{}, ErrAmbiguousID},
		{"abce", cas.Hash{}, ErrUnknownID},
		{"abcd" + strings.Repeat("1", 61), cas.Hash{}, ErrUnknownID},
		{"xyz1", cas.Hash{}, ErrUnknownID},
		{"@1", cas.Hash{}, ErrNoTurn},
	} {
		h, err := r.resolve(ctx, c.id)
		if h != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("resolve(%q) = %v, %v; want %v, %v", c.id, h.Short(), err, c.want.Short(), c.err)
		}
	}
	if _, err := r.resolve(ctx, "7"); !errors.Is(err, ErrBadRef) || !strings.Contains(err.Error(), "at least 4 hex digits (for turn 7, write @7)") {
		t.Errorf("resolve(7): %v", err)
	}

	// Turns of another session are not this session's @N.
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other, err := r.View(Options{Store: r.StoreDir(), Session: "other"})
	if err != nil {
		t.Fatal(err)
	}
	before, err := other.Snap(ctx, "other's")
	if err != nil {
		t.Fatal(err)
	}
	if h, err := other.resolve(ctx, "@1^"); err != nil || h != before.Snapshot {
		t.Errorf("other: resolve(@1^) = %v, %v; want %v", h.Short(), err, before.Snapshot.Short())
	}
	if _, err := other.resolve(ctx, "@1"); !errors.Is(err, ErrOpenTurn) {
		t.Errorf("other: resolve(@1) of the open turn: %v, want ErrOpenTurn", err)
	}
	if _, err := r.resolve(ctx, "@1"); !errors.Is(err, ErrNoTurn) || !errors.Is(err, ErrUnknownID) || !strings.Contains(err.Error(), `session "default": it has no turns`) {
		t.Errorf("default: resolve(@1): %v", err)
	}
}
