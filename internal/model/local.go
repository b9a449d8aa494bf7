package model

// Store-local records: the root package keeps them for this store
// alone, and internal/exchange never carries them to a remote. Here
// are their keys, types and encoding; the root reads and writes them.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/walker"
	"github.com/turnback/turnback/walker/gitindex"
)

// Keys of the store-local records.
const (
	// KeyCaptureMemo holds the CaptureMemo of the state m/latest names.
	KeyCaptureMemo = "m/capture"
	// KeyUmasks -> the masks restores in this store have used (JSON list).
	KeyUmasks = "m/umasks"
	// PrefixPulled + session name -> PulledRecord.
	PrefixPulled = "m/pulled/"
	// PrefixForeign + session name -> ForeignRecord.
	PrefixForeign = "m/foreign/"
	// PrefixSkips + session + "/" + %012d -> SkipStamps of the open turn.
	PrefixSkips = "m/skips/"
	// KeyGC records the store size after the last full gc (GCRecord).
	KeyGC = "m/gc"
)

// CaptureMemo says how the state m/latest names was captured, so that a
// later process can take it as the base of a scoped capture: the work
// tree and settings, the git index versions, and what it skipped.
type CaptureMemo struct {
	Root          string           `json:"root"`
	WorkTree      string           `json:"work_tree"`
	SizeLimit     int64            `json:"size_limit"`
	LargeDirFiles int              `json:"large_dir_files"`
	Files         int64            `json:"files"`
	Index         []gitindex.Stamp `json:"index,omitempty"`
	Skipped       []walker.Ignored `json:"skipped,omitempty"`
	// TrackedIgnored: its walker.Result.TrackedIgnored.
	TrackedIgnored []string `json:"tracked_ignored,omitempty"`
}

// PulledRecord is what a pull brought that the folder lacks.
type PulledRecord struct {
	// Rev and Last are the session record's as the pull wrote it: the
	// record is valid while they are the session's.
	Rev  string `json:"rev"`
	Last string `json:"last"`
	// Base is the state the folder was at, as the store knew it.
	Base string `json:"base"`
	// Turns are the turns pulled, oldest first.
	Turns []int `json:"turns"`
	// Fresh: the store had no record of the session, so Base is the
	// store's latest capture, unrelated to the session's states: only
	// the paths the pulled turns changed are applied.
	Fresh bool `json:"fresh,omitempty"`
}

// KeepPulled is gc's pulled record of session s, still valid after gc
// rewrote s (a trim is not a change of the folder), and marks live the
// state the folder was at: the apply's conflict check reads it.
func KeepPulled(m *PulledRecord, s *SessionRecord, live map[cas.Hash]bool) (cas.Entry, error) {
	base, err := cas.ParseHash(m.Base)
	if err != nil {
		return cas.Entry{}, fmt.Errorf("%w: pulled record of session %s: %v", cas.ErrCorrupt, s.Name, err)
	}
	live[base] = true
	m.Rev = s.Rev
	return cas.Entry{Key: []byte(PrefixPulled + s.Name), Value: EncodeJSON(m)}, nil
}

// ForeignRecord lists the turns of a session whose states another
// machine captured, applied here by pull --apply.
type ForeignRecord struct {
	Turns []int `json:"turns"`
}

// PrefixLocalize + session name -> a state id: a pseudo-record a
// restore of a pulled state puts in its metadata batch. It is never
// stored: the root's commitMeta runs localizeLast for it once the batch
// is committed, so that a restore a recovery finishes localizes too.
const PrefixLocalize = "m/localize/"

// LocalizeEntry asks commitMeta to localize session's last state, if
// it is last, once the restore is committed.
func LocalizeEntry(session string, last cas.Hash) cas.Entry {
	return cas.Entry{Key: []byte(PrefixLocalize + session), Value: []byte(last.String())}
}

// LocalizeLater takes the LocalizeEntry records out of writes.
func LocalizeLater(writes []cas.Entry) (rest []cas.Entry, later map[string]cas.Hash) {
	for _, e := range writes {
		s, ok := strings.CutPrefix(string(e.Key), PrefixLocalize)
		if !ok {
			rest = append(rest, e)
			continue
		}
		if h, err := cas.ParseHash(string(e.Value)); err == nil {
			if later == nil {
				later = map[string]cas.Hash{}
			}
			later[s] = h
		}
	}
	return rest, later
}

// SkipStamps are the stat data a snap noted of the paths its capture
// skipped, for the end that may drop the turn.
type SkipStamps struct {
	Turn    int         `json:"turn"`
	Entries []SkipStamp `json:"entries"`
}

// SkipStamp is one skipped path's stat data.
type SkipStamp struct {
	Ignored walker.Ignored `json:"ignored"`
	Stat    string         `json:"stat"` // "" absent
}

// SkipsKey is the key of the SkipStamps of turn n of session.
func SkipsKey(session string, n int) []byte {
	return []byte(PrefixSkips + session + "/" + fmt.Sprintf(TurnNumFmt, n))
}

// GCRecord is the store size after the last full gc, and when.
type GCRecord struct {
	Time time.Time `json:"time"`
	Size int64     `json:"size"`
}

// MetaBatch is the metadata a restore commits together with its files.
type MetaBatch struct {
	Writes  []cas.Entry `json:"writes"`
	Deletes [][]byte    `json:"deletes"`
	// The checkpoint the writes refer to, and the result (see the
	// root's amendMeta).
	Checkpoint string `json:"checkpoint,omitempty"`
	Result     string `json:"result,omitempty"`
	// Scope: the paths a scoped undo or redo vouches for (the root's
	// partial.go), so that an amended checkpoint is partial too.
	Scope []string `json:"scope,omitempty"`
	// Recapture: the restore rewrote ignore rules, or made a path its
	// start ignores, so its result is captured again once the files are
	// in place (the root's settle.go).
	Recapture bool `json:"recapture,omitempty"`
}

// AmendBatch is the restore journal's batch m with its checkpoint cp
// replaced by amended, cp with what the restore displaced (the root's
// amendMeta): the session records and the checkpoint record name
// amended, and amended gets a checkpoint's snapshot record, with cp's
// skips, and partial when cp's is.
func AmendBatch(m MetaBatch, cp, amended cas.Hash) MetaBatch {
	old, now := []byte(cp.String()), []byte(amended.String())
	out := MetaBatch{Deletes: m.Deletes, Checkpoint: amended.String(), Result: m.Result, Scope: m.Scope, Recapture: m.Recapture}
	var skip *SkipInfo
	var part *SnapshotRecord // the checkpoint's record, if partial (PartialEntry)
	for _, e := range m.Writes {
		if bytes.Equal(e.Key, SnapKey(cp)) {
			var rec SnapshotRecord
			if json.Unmarshal(e.Value, &rec) == nil {
				skip = SkipInfoOfRecord(&rec)
			}
			if rec.Partial {
				part = &rec
			}
		}
		// Session records name the checkpoint (the redo record's way
		// back); turn records keep the states the turns had.
		if bytes.HasPrefix(e.Key, []byte(PrefixSess)) {
			e.Value = bytes.ReplaceAll(e.Value, old, now)
		}
		// The checkpoint record names the way back the command prints:
		// checkpoints lists it and gc keeps it.
		if bytes.Equal(e.Key, CheckpointKey(cp)) {
			e.Key = CheckpointKey(amended)
		}
		out.Writes = append(out.Writes, e)
	}
	amendedRec := SnapshotEntry(amended, KindCheckpoint, 0, 0, skip)
	switch {
	case m.Scope != nil:
		// A scoped capture's checkpoint, even one that is the tree of
		// a whole state: the amended tree holds an older capture's
		// content elsewhere. The edits it adds are at paths it vouches for.
		amendedRec = PartialEntry(amendedRec, m.Scope)
	case part != nil:
		amendedRec = PartialEntry(amendedRec, part.Paths)
	}
	out.Writes = append(out.Writes, amendedRec)
	return out
}
