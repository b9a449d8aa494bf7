package remote

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/internal/exchange"
)

// Session is one session of a remote: its newest head, summarised.
type Session struct {
	turnback.SessionInfo
	// Head is the newest head's address (s3://BUCKET/KEY).
	Head string
	// Bytes is the size of the packs and indexes the head names: what
	// a clone into an empty store downloads at most. Packs are shared,
	// so the sessions' sizes may add up to more than the bucket holds.
	Bytes int64
}

// Sessions lists the remote's sessions, as Repo.Sessions orders a
// store's: newest last turn first, with short names among them. It reads
// the newest head of each session; a head that does not decode fails it,
// naming the head.
func Sessions(ctx context.Context, c *s3.Client) ([]Session, error) {
	heads, err := c.List(ctx, "heads/")
	if err != nil {
		return nil, err
	}
	newest := map[string]string{}
	for _, o := range heads {
		if s, _, _, ok := s3.ParseHeadKey(o.Key); ok {
			if _, seen := newest[s]; !seen {
				newest[s] = newestHead(heads, s)
			}
		}
	}
	packs, err := c.List(ctx, "packs/")
	if err != nil {
		return nil, err
	}
	size := map[cas.Hash]int64{}
	for _, o := range packs {
		if id, _, ok := s3.ParsePackKey(o.Key); ok {
			size[id] += o.Size
		}
	}
	var out []Session
	var mu sync.Mutex
	names := make([]string, 0, len(newest))
	for name := range newest {
		names = append(names, name)
	}
	err = forEach(ctx, 8, names, func(ctx context.Context, name string) error {
		key := newest[name]
		addr := "s3://" + c.Bucket + "/" + c.Prefix + key
		data, err := c.Get(ctx, c.Prefix+key, s3.MaxHead)
		if errors.Is(err, s3.ErrNotFound) {
			return nil // replaced and collected meanwhile (remote gc)
		}
		if err != nil {
			return err
		}
		head, err := s3.DecodeHead(data)
		if err == nil && head.Session != name {
			err = fmt.Errorf("%w: head of session %q", s3.ErrCorrupt, head.Session)
		}
		var info turnback.SessionInfo
		if err == nil {
			info, err = exchange.SessionOf(name, records(head.Records))
		}
		if err != nil {
			return fmt.Errorf("%w (%s)", err, addr)
		}
		s := Session{SessionInfo: info, Head: addr}
		for _, p := range head.Packs {
			if id, err := cas.ParseHash(p); err == nil {
				s.Bytes += size[id]
			}
		}
		mu.Lock()
		out = append(out, s)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	infos := make([]turnback.SessionInfo, len(out))
	for i := range out {
		infos[i] = out[i].SessionInfo
	}
	exchange.SortSessions(infos)
	byName := map[string]Session{}
	for _, s := range out {
		byName[s.Name] = s
	}
	for i, info := range infos {
		s := byName[info.Name]
		s.SessionInfo = info
		out[i] = s
	}
	return out, nil
}

// SessionInfos returns the SessionInfo of each of list.
func SessionInfos(list []Session) []turnback.SessionInfo {
	out := make([]turnback.SessionInfo, len(list))
	for i, s := range list {
		out[i] = s.SessionInfo
	}
	return out
}
