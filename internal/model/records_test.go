package model

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/turnback/turnback/cas"
)

func TestOpName(t *testing.T) {
	for _, tt := range []struct {
		verb  string
		turns []int
		want  string
	}{
		{"undo", []int{3}, "undo turn 3"},
		{"redo", []int{2, 3}, "redo turns 2, 3"},
		{"undo", []int{1, 2, 10}, "undo turns 1, 2, 10"},
	} {
		if got := OpName(tt.verb, tt.turns); got != tt.want {
			t.Errorf("OpName(%q, %v) = %q, want %q", tt.verb, tt.turns, got, tt.want)
		}
	}
}

func TestKeepCheckpoint(t *testing.T) {
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	day := Checkpoint{Turn: 5, Time: now.Add(-24 * time.Hour)}
	for _, tt := range []struct {
		name      string
		forgotten int
		older     time.Duration
		want      bool
	}{
		{"kept", 5, time.Hour * 48, true},
		{"turn after forgotten", 6, -1, false},
		{"no age limit", 0, -1, true},
		{"too old", 0, time.Hour, false},
	} {
		if got := KeepCheckpoint(day, tt.forgotten, GCOptions{OlderThan: tt.older}, now); got != tt.want {
			t.Errorf("%s: KeepCheckpoint = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCheckpointRecordPaths(t *testing.T) {
	var rec CheckpointRecord
	for i := range CheckpointPaths + 3 {
		rec.AddPath(fmt.Sprint(i))
	}
	if len(rec.Paths) != CheckpointPaths || rec.More != 3 || rec.Paths[CheckpointPaths-1] != fmt.Sprint(CheckpointPaths-1) {
		t.Fatalf("paths %d, more %d", len(rec.Paths), rec.More)
	}
	h := cas.Sum([]byte("cp"))
	rec.Session, rec.Turn, rec.Command = "s", 2, "undo turn 2"
	e := CheckpointEntry(h, rec)
	c, err := DecodeCheckpoint(e.Key, e.Value)
	if err != nil {
		t.Fatal(err)
	}
	if c.ID != h.String() || c.Session != "s" || c.Turn != 2 || c.Command != "undo turn 2" || len(c.Paths) != CheckpointPaths || c.More != 3 {
		t.Fatalf("decoded %+v", c)
	}
}

func TestSessionEntryRevs(t *testing.T) {
	s := &SessionRecord{Name: "s"}
	var revs []string
	for range MaxRevs + 5 {
		SessionEntry(s)
		revs = append(revs, s.Rev)
	}
	if len(s.Revs) != MaxRevs || s.Revs[MaxRevs-1] != revs[len(revs)-2] || s.Version != MetaVersion {
		t.Fatalf("revs %d, last %q, want %q", len(s.Revs), s.Revs[len(s.Revs)-1], revs[len(revs)-2])
	}
}

// FuzzDecodeCheckpoint checks that a checkpoint record decodes or is
// refused as corrupt.
func FuzzDecodeCheckpoint(f *testing.F) {
	h := cas.Sum([]byte("cp")).String()
	f.Add([]byte(PrefixCheckpoint+h), []byte(`{"v":1,"session":"s","turn":2,"paths":["a"],"more":1}`))
	f.Add([]byte(PrefixCheckpoint+"zz"), []byte(`{}`))
	f.Add([]byte(PrefixCheckpoint+h), []byte(`[`))
	f.Fuzz(func(t *testing.T, k, v []byte) {
		c, err := DecodeCheckpoint(k, v)
		if err != nil {
			if !errors.Is(err, cas.ErrCorrupt) {
				t.Fatalf("error not ErrCorrupt: %v", err)
			}
			return
		}
		if _, err := cas.ParseHash(c.ID); err != nil || !strings.HasSuffix(string(k), c.ID) || c.Paths == nil {
			t.Fatalf("decoded %+v from %q", c, k)
		}
	})
}
