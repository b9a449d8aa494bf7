package remote

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/internal/exchange"
	"github.com/turnback/turnback/manifest"
)

// VerifyResult is what Verify checked and found.
type VerifyResult struct {
	Packs   int   `json:"packs"`
	Objects int   `json:"objects"`
	Bytes   int64 `json:"bytes"`
	Heads   int   `json:"heads"`
	// Incomplete counts packs without an index (left by a push that
	// was stopped; nothing names them, gc removes them).
	Incomplete int      `json:"incomplete"`
	Problems   []string `json:"problems,omitempty"`
}

// Verify reads the whole remote: every pack against its id and
// its index, every record against its address, and every head: that it
// decodes and that every tree, blob, chunk list and chunk its sessions
// reach is in a pack it names. A problem found is listed and the error
// wraps turnback.ErrVerify; a failure to read is returned as it is.
func Verify(ctx context.Context, c *s3.Client) (*VerifyResult, error) {
	res := &VerifyResult{}
	whole, objs, _, err := listRemote(ctx, c)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	problem := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		res.Problems = append(res.Problems, fmt.Sprintf(format, a...))
	}
	held := map[cas.Hash]map[cas.Hash]s3.Kind{} // pack -> records
	trees := map[cas.Hash]*manifest.Tree{}
	lists := map[cas.Hash][]cas.ChunkRef{}
	isWhole := map[cas.Hash]bool{}
	for _, id := range whole {
		isWhole[id] = true
	}
	for id, os := range objs {
		if !isWhole[id] {
			if len(os) == 1 && strings.HasSuffix(os[0].Key, ".pack") {
				res.Incomplete++
			} else {
				problem("s3://%s/%s%s: index without its pack", c.Bucket, c.Prefix, os[0].Key)
			}
		}
	}
	err = forEach(ctx, 4, whole, func(ctx context.Context, id cas.Hash) error {
		ikey, pkey := s3.IndexKey(c.Prefix, id), s3.PackKey(c.Prefix, id)
		idx, err := c.Get(ctx, ikey, 64<<20)
		if err != nil {
			return err
		}
		size, entries, err := s3.DecodeIndex(idx)
		if err != nil {
			problem("s3://%s/%s: %v", c.Bucket, ikey, err)
			return nil
		}
		data, err := c.Get(ctx, pkey, s3.MaxPack)
		if err != nil {
			return err
		}
		if int64(len(data)) != size || cas.Sum(data) != id || !strings.HasPrefix(string(data[:min(len(data), len(s3.PackHeader))]), s3.PackHeader) {
			problem("s3://%s/%s: %v: content does not match its name or index", c.Bucket, pkey, s3.ErrCorrupt)
			return nil
		}
		recs := map[cas.Hash]s3.Kind{}
		for _, e := range entries {
			raw := data[e.Offset : e.Offset+e.Length]
			var content []byte
			if e.Kind == s3.KindChunkList {
				refs, err := s3.ParseChunkList(e.Hash, raw)
				if err != nil {
					problem("s3://%s/%s: %v", c.Bucket, pkey, err)
					continue
				}
				mu.Lock()
				lists[e.Hash] = refs
				mu.Unlock()
			} else if content, err = s3.VerifyRecord(e.Hash, raw); err != nil {
				problem("s3://%s/%s: %v", c.Bucket, pkey, err)
				continue
			}
			if e.Kind == s3.KindTree {
				t, err := manifest.Decode(content)
				if err != nil {
					problem("s3://%s/%s: tree %s: %v", c.Bucket, pkey, e.Hash, err)
					continue
				}
				mu.Lock()
				trees[e.Hash] = t
				mu.Unlock()
			}
			recs[e.Hash] = e.Kind
		}
		mu.Lock()
		defer mu.Unlock()
		held[id] = recs
		res.Packs++
		res.Objects += len(recs)
		res.Bytes += int64(len(data))
		return nil
	})
	if err != nil {
		return nil, err
	}
	heads, err := c.List(ctx, "heads/")
	if err != nil {
		return nil, err
	}
	for _, o := range heads {
		key := c.Prefix + o.Key
		if _, _, _, ok := s3.ParseHeadKey(o.Key); !ok {
			problem("s3://%s/%s: not a head's name", c.Bucket, key)
			continue
		}
		data, err := c.Get(ctx, key, s3.MaxHead)
		if err != nil {
			return nil, err
		}
		res.Heads++
		head, err := s3.DecodeHead(data)
		var roots []cas.Hash
		if err == nil {
			roots, err = exchange.RecordRoots(head.Session, records(head.Records))
		}
		if err != nil {
			problem("s3://%s/%s: %v", c.Bucket, key, err)
			continue
		}
		has := map[cas.Hash]s3.Kind{}
		for _, p := range head.Packs {
			id, _ := cas.ParseHash(p)
			recs, ok := held[id]
			if !ok {
				problem("s3://%s/%s: names pack %s, which is missing or damaged", c.Bucket, key, p)
			}
			for h, k := range recs {
				has[h] = k
			}
		}
		if missing := reach(roots, has, trees, lists); len(missing) > 0 {
			problem("s3://%s/%s: %d records its session reaches are in no pack it names, e.g. %s", c.Bucket, key, len(missing), missing[0])
		}
	}
	sort.Strings(res.Problems)
	if len(res.Problems) > 0 {
		return res, fmt.Errorf("%w: the remote has %d problems", turnback.ErrVerify, len(res.Problems))
	}
	return res, nil
}

// reach walks roots through trees and chunk lists and returns what is
// not in has (as "kind hash").
func reach(roots []cas.Hash, has map[cas.Hash]s3.Kind, trees map[cas.Hash]*manifest.Tree, lists map[cas.Hash][]cas.ChunkRef) []string {
	var missing []string
	seen := map[cas.Hash]bool{}
	need := func(h cas.Hash, k s3.Kind) bool {
		if seen[h] {
			return false
		}
		seen[h] = true
		if has[h] != k {
			missing = append(missing, k.String()+" "+h.String())
			return false
		}
		return true
	}
	var walk func(h cas.Hash)
	walk = func(h cas.Hash) {
		if h.IsZero() || h == manifest.EmptyTreeHash() || !need(h, s3.KindTree) {
			return
		}
		dirs, files := treeChildren(trees[h])
		for _, f := range files {
			if seen[f] {
				continue
			}
			if has[f] == s3.KindChunkList {
				need(f, s3.KindChunkList)
				for _, c := range lists[f] {
					need(c.Hash, s3.KindBlob)
				}
				continue
			}
			need(f, s3.KindBlob)
		}
		for _, d := range dirs {
			walk(d)
		}
	}
	for _, h := range roots {
		walk(h)
	}
	return missing
}

// GCOptions configure GC.
type GCOptions struct {
	// Grace: what no head names is deleted only once a pending list
	// named it this long ago (0: DefaultGrace), and a head a
	// newer one of its session replaced only once this old.
	Grace  time.Duration
	DryRun bool
}

// GCResult is what GC did (or, dry, would do).
type GCResult struct {
	HeadsDeleted int   `json:"heads_deleted"`
	PacksDeleted int   `json:"packs_deleted"`
	BytesFreed   int64 `json:"bytes_freed"`
	// PacksPending: packs no head names, listed now for a later run.
	PacksPending int `json:"packs_pending"`
}

// GC removes from the remote what no head needs, safely while
// other stores push (see package cas/s3: two runs a grace period apart).
// It reads every head first: an object under heads/ that is not a head
// of a valid session name, or a head that does not decode, might name
// any pack, so gc then deletes nothing and returns an error wrapping
// ErrRemoteHead that names each such object.
func GC(ctx context.Context, c *s3.Client, o GCOptions) (*GCResult, error) {
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	now := time.Now()
	res := &GCResult{}
	heads, err := c.List(ctx, "heads/")
	if err != nil {
		return nil, err
	}
	type headAt struct {
		key   string
		nanos int64
	}
	newest := map[string]headAt{}
	var bad []string
	for _, h := range heads {
		s, n, _, ok := s3.ParseHeadKey(h.Key)
		if !ok {
			bad = append(bad, fmt.Sprintf("s3://%s/%s%s: not a head's name", c.Bucket, c.Prefix, h.Key))
			continue
		}
		if cur, seen := newest[s]; !seen || n > cur.nanos || n == cur.nanos && h.Key > cur.key {
			newest[s] = headAt{h.Key, n}
		}
	}
	live := map[cas.Hash]bool{}
	var replaced []string
	for _, h := range heads {
		s, _, _, ok := s3.ParseHeadKey(h.Key)
		if !ok {
			continue
		}
		if h.Key != newest[s].key && now.Sub(h.Modified) > o.Grace {
			replaced = append(replaced, h.Key)
			continue
		}
		data, err := c.Get(ctx, c.Prefix+h.Key, s3.MaxHead)
		if errors.Is(err, s3.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		head, err := s3.DecodeHead(data)
		if err != nil {
			bad = append(bad, fmt.Sprintf("s3://%s/%s%s: %v", c.Bucket, c.Prefix, h.Key, err))
			continue
		}
		for _, p := range head.Packs {
			id, _ := cas.ParseHash(p)
			live[id] = true
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("%w: %s; remote gc deleted nothing (an object under heads/ may name any pack: "+
			"move it out of heads/, or delete it if it is no head, then run gc again)", ErrRemoteHead, strings.Join(bad, "; "))
	}
	_, objs, _, err := listRemote(ctx, c)
	if err != nil {
		return nil, err
	}
	lists, err := c.List(ctx, "gc/")
	if err != nil {
		return nil, err
	}
	// Every list is read before anything is deleted: one that does not
	// decode stops gc with nothing deleted.
	bodies := make([]*s3.Pending, len(lists))
	for i, l := range lists {
		data, err := c.Get(ctx, c.Prefix+l.Key, 64<<20)
		if err != nil {
			return nil, err
		}
		if bodies[i], err = s3.DecodePending(data); err != nil {
			return nil, fmt.Errorf("turnback: remote gc: %w (s3://%s/%s%s; nothing was deleted)", err, c.Bucket, c.Prefix, l.Key)
		}
	}
	for _, key := range replaced {
		res.HeadsDeleted++
		if !o.DryRun {
			if err := c.Remove(ctx, c.Prefix+key); err != nil {
				return nil, err
			}
		}
	}
	listed := map[cas.Hash]bool{}
	for i, l := range lists {
		p := bodies[i]
		ripe := now.Sub(l.Modified) > o.Grace
		for _, s := range p.Packs {
			id, _ := cas.ParseHash(s)
			if live[id] {
				continue
			}
			if !ripe {
				listed[id] = true
				continue
			}
			// The index first: a pack without one is never used.
			for _, suffix := range []string{".idx", ".pack"} {
				for _, ob := range objs[id] {
					if strings.HasSuffix(ob.Key, suffix) {
						res.BytesFreed += ob.Size
						if !o.DryRun {
							if err := c.Remove(ctx, c.Prefix+ob.Key); err != nil {
								return nil, err
							}
						}
					}
				}
			}
			if len(objs[id]) > 0 {
				res.PacksDeleted++
			}
			delete(objs, id)
		}
		if ripe && !o.DryRun {
			if err := c.Remove(ctx, c.Prefix+l.Key); err != nil {
				return nil, err
			}
		}
	}
	var pending []string
	for id := range objs {
		if !live[id] && !listed[id] {
			pending = append(pending, id.String())
		}
	}
	sort.Strings(pending)
	res.PacksPending = len(pending)
	if len(pending) > 0 && !o.DryRun {
		body := encodeJSON(s3.Pending{Version: 1, Packs: pending})
		if err := c.Put(ctx, s3.PendingKey(c.Prefix, now.UnixNano()), body); err != nil {
			return nil, err
		}
	}
	return res, nil
}
