package turnback

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/turnback/turnback/cas"
)

// Checkpoints are the states undo, redo and restore replaced, printed to
// the user as the way back ("turnback restore <checkpoint>"). Each one
// gets a record under prefixCheckpoint saying when it was made and where
// it sits in its session's history: after turn Turn (the session's newest
// turn number at that moment, undone or not), before turn Turn+1.
//
// Retention treats a checkpoint like the turns around it: gc drops it only
// once retention has forgotten the turn after it (a turn numbered above
// Turn; sessionRecord.Forgotten remembers the highest turn retention ever
// forgot), or when it is older than the age limit, exactly as turns older
// than the limit go. The newest checkpoint of the store is kept regardless,
// as the newest turn is.
const prefixCheckpoint = "m/cp/" // + hex id -> checkpointRecord

// checkpointRecord is one checkpoint's place in history.
type checkpointRecord struct {
	Version int       `json:"v"`
	Time    time.Time `json:"time"`
	Session string    `json:"session"`
	// Turn is the session's newest turn number when the checkpoint was
	// made (0: the session had no turn yet).
	Turn int `json:"turn"`
}

// Checkpoint describes a recorded checkpoint (GCResult lists the ones gc
// drops).
type Checkpoint struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Session string    `json:"session"`
	// Turn is the session's newest turn number when it was made: the
	// checkpoint sits between turn Turn and turn Turn+1.
	Turn int `json:"turn"`
}

func checkpointKey(h cas.Hash) []byte { return []byte(prefixCheckpoint + h.String()) }

// checkpointEntry records checkpoint cp as made now by this Repo's
// session. Recording the same state again moves it later in history,
// which only keeps it longer.
func (r *Repo) checkpointEntry(ctx context.Context, cp cas.Hash) (cas.Entry, error) {
	sess, err := r.loadSession(ctx, r.session)
	if err != nil {
		return cas.Entry{}, err
	}
	rec := checkpointRecord{Version: metaVersion, Time: time.Now().UTC(), Session: r.session, Turn: sess.NextTurn - 1}
	return cas.Entry{Key: checkpointKey(cp), Value: encodeJSON(rec)}, nil
}

// checkpoints returns every checkpoint record.
func (r *Repo) checkpoints(ctx context.Context) ([]Checkpoint, error) {
	var out []Checkpoint
	err := r.backend.Scan(ctx, []byte(prefixCheckpoint), false, func(k, v []byte) error {
		id := strings.TrimPrefix(string(k), prefixCheckpoint)
		if _, err := cas.ParseHash(id); err != nil {
			return fmt.Errorf("%w: checkpoint key %q", cas.ErrCorrupt, k)
		}
		var rec checkpointRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return fmt.Errorf("%w: checkpoint %s: %v", cas.ErrCorrupt, id, err)
		}
		out = append(out, Checkpoint{ID: id, Time: rec.Time, Session: rec.Session, Turn: rec.Turn})
		return nil
	})
	return out, err
}

// keepCheckpoint applies retention to one checkpoint: forgotten is the
// highest turn number retention has forgotten in its session.
func keepCheckpoint(c Checkpoint, forgotten int, o GCOptions, now time.Time) bool {
	if c.Turn < forgotten {
		return false // the turn after it is gone
	}
	return o.OlderThan < 0 || now.Sub(c.Time) <= o.OlderThan
}
