package exchange

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/internal/model"
)

// RuleBlobs returns the blobs the snapshot records among recs name for
// the rules of their ignored ignore files (model.SnapshotRecord.RuleBlobs):
// no tree reaches them, so a push sends them besides the states and a
// pull fetches them. Sorted, each once; a record or hash that does not
// decode names none (its rules are then unknown where it is read).
func RuleBlobs(recs []Record) []cas.Hash {
	var out []cas.Hash
	for _, rec := range recs {
		if !strings.HasPrefix(rec.Key, model.PrefixSnap) {
			continue
		}
		var sr model.SnapshotRecord
		if json.Unmarshal(rec.Value, &sr) != nil {
			continue
		}
		for _, s := range sr.RuleBlobs {
			if h, err := cas.ParseHash(s); err == nil {
				out = append(out, h)
			}
		}
	}
	slices.SortFunc(out, func(a, b cas.Hash) int { return bytes.Compare(a[:], b[:]) })
	return slices.Compact(out)
}
