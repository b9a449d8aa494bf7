package merge

import (
	"bytes"
	"strings"
	"testing"
)

// lineText turns fuzz bytes into text of few distinct lines, so the three
// versions share lines and merge often: every byte is a line "a".."f"
// ended by "\n", "\r\n" or nothing (joined to the next).
func lineText(s string) []byte {
	var b bytes.Buffer
	for i := 0; i < len(s); i++ {
		c := s[i]
		b.WriteByte('a' + c%6)
		switch (c >> 3) % 4 {
		case 0, 1:
			b.WriteByte('\n')
		case 2:
			b.WriteString("\r\n")
		}
	}
	return b.Bytes()
}

// FuzzThree: on random versions (raw, and made of few distinct lines)
// Three never panics, is deterministic, gives theirs when ours is base
// and ours when theirs is base, and never loses a line the user wrote:
// every line base→ours inserts is in the result, in order, whenever the
// merge gives a result (a clean one, or one with markers).
func FuzzThree(f *testing.F) {
	f.Add("abc", "abXc", "Yabc", false)
	f.Add("a\nb\nc\n", "a\nU\nc\n", "a\nT\nc\n", false)
	f.Add("\x01\x02\x03\x04", "\x01\x09\x03\x04", "\x01\x02\x03\x0c", true)
	f.Add("", "x", "y", true)
	f.Fuzz(func(t *testing.T, base, ours, theirs string, raw bool) {
		b, o, th := []byte(base), []byte(ours), []byte(theirs)
		if !raw {
			b, o, th = lineText(base), lineText(ours), lineText(theirs)
		}
		if Mergeable(b) != nil || Mergeable(o) != nil || Mergeable(th) != nil {
			if _, err := Three(b, o, th, Options{}); err == nil {
				t.Fatal("merged content Mergeable refuses")
			}
			return
		}
		opts := Options{OursLabel: "now", TheirsLabel: "before"}
		clean, err := Three(b, o, th, opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Markers = true
		marked, err := Three(b, o, th, opts)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := Three(b, o, th, opts)
		if !bytes.Equal(marked.Text, again.Text) || marked.Conflicts != clean.Conflicts {
			t.Fatalf("not deterministic or conflicts differ: %d vs %d", marked.Conflicts, clean.Conflicts)
		}
		if clean.Conflicts == 0 && !bytes.Equal(clean.Text, marked.Text) {
			t.Fatalf("no conflict, yet markers change the text: %q vs %q", clean.Text, marked.Text)
		}
		if clean.Conflicts > 0 && clean.Text != nil {
			t.Fatalf("a conflict without markers gave text %q", clean.Text)
		}
		if r, _ := Three(b, b, th, Options{}); r.Conflicts != 0 || !bytes.Equal(r.Text, th) {
			t.Fatalf("ours == base: got %q (%d conflicts), want theirs %q", r.Text, r.Conflicts, th)
		}
		if r, _ := Three(b, o, b, Options{}); r.Conflicts != 0 || !bytes.Equal(r.Text, o) {
			t.Fatalf("theirs == base: got %q (%d conflicts), want ours %q", r.Text, r.Conflicts, o)
		}
		// The user's lines, in order, are a subsequence of the result
		// (a last line without a newline gets one before a marker).
		O, A := Lines(b), Lines(o)
		var user []string
		for _, h := range diff(O, A, sideOurs) {
			for _, l := range A[h.rs:h.re] {
				user = append(user, trimEOL(l))
			}
		}
		for _, r := range []Result{clean, marked} {
			if r.Text == nil {
				continue
			}
			got := Lines(r.Text)
			i := 0
			for _, l := range got {
				if i < len(user) && trimEOL(l) == user[i] {
					i++
				}
			}
			if i < len(user) {
				t.Fatalf("user line %q lost: base %q ours %q theirs %q -> %q", user[i], b, o, th, r.Text)
			}
		}
		if !bytes.Contains(b, []byte("\r")) && !bytes.Contains(o, []byte("\r")) && !bytes.Contains(th, []byte("\r")) &&
			bytes.Contains(marked.Text, []byte("\r")) {
			t.Fatalf("a carriage return no version has: %q", marked.Text)
		}
	})
}

func trimEOL(l []byte) string { return strings.TrimSuffix(strings.TrimSuffix(string(l), "\n"), "\r") }
