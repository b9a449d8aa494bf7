package remote

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/internal/exchange"
	"github.com/turnback/turnback/manifest"
)

// PullResult is what Pull did.
type PullResult struct {
	Session string `json:"session"`
	Head    string `json:"head"` // the head pulled (s3://BUCKET/KEY)
	Turns   int    `json:"turns"`
	// NothingNew: the store's session already held everything the
	// remote's does (it may hold more: turns, undos, redos not pushed);
	// it was kept as it was and nothing was downloaded.
	NothingNew bool `json:"nothing_new,omitempty"`
	// Objects is the number of records (trees, blobs, chunk lists)
	// downloaded, RecordBytes their stored size; BytesReceived counts
	// every byte downloaded (indexes and heads too), Requests every
	// request.
	Objects       int   `json:"objects"`
	RecordBytes   int64 `json:"record_bytes"`
	BytesReceived int64 `json:"bytes_received"`
	Requests      int64 `json:"requests"`
	// Fetched lists how many times each record was downloaded (tests
	// check that none was twice).
	Fetched map[cas.Hash]int `json:"-"`
	last    cas.Hash
	// Pending: the pulled turns the folder lacks (nil: none; the folder
	// is where the session left it).
	Pending *Pending `json:"pending,omitempty"`
}

// Pending is what a pull brought into the store that the folder lacks
// (turnback.Repo.Pulled).
type Pending struct {
	// Turns are the turns pulled and not applied, oldest first.
	Turns []int `json:"turns"`
	// State is the session's last state, which the folder lacks.
	State string `json:"state"`
	// Newest is the session's newest turn; AtNewest: State is its
	// after-state (restore @Newest makes the folder State).
	Newest   int  `json:"newest"`
	AtNewest bool `json:"at_newest"`
}

// pending returns what r's session holds that the folder lacks.
func pending(ctx context.Context, r *turnback.Repo, session string) (*Pending, error) {
	p, err := r.Pulled(ctx, session)
	if err != nil || p == nil {
		return nil, err
	}
	return &Pending{Turns: p.Turns, State: p.Last.String(), Newest: p.Newest, AtNewest: p.AtNewest}, nil
}

// PullOptions configure Pull.
type PullOptions struct {
	// Session to pull; empty means this Repo's session.
	Session string
	// Parallel bounds the downloads at once (0: 8).
	Parallel int
}

// Pull brings the remote's newest head of a session into r's store:
// every tree, blob and chunk list it reaches that the store lacks,
// verified against its address before it is written, then the
// session's records (after the content is flushed, so a pull stopped
// part way leaves only unreferenced blobs). It never forgets local
// state: a local session that holds everything the remote's does is
// kept as it is (NothingNew), and one that changed since the two last
// matched, where the remote's changed too, is turnback.ErrDiverged
// (see exchange.Import); the work tree is not touched.
func Pull(ctx context.Context, r *turnback.Repo, c *s3.Client, o PullOptions) (*PullResult, error) {
	if o.Session == "" {
		o.Session = r.Session()
	}
	if o.Parallel <= 0 {
		o.Parallel = 8
	}
	recv0, req0 := c.Received.Load(), c.Requests.Load()
	h := &headSource{c: c, par: o.Parallel}
	imp, err := exchange.Import(ctx, r, o.Session, h)
	if err != nil {
		return nil, err
	}
	res := h.res
	res.NothingNew, res.Turns, res.last = imp.Kept, imp.Turns, imp.Last
	if res.Pending, err = pending(ctx, r, o.Session); err != nil {
		return nil, err
	}
	res.BytesReceived = c.Received.Load() - recv0
	res.Requests = c.Requests.Load() - req0
	return res, nil
}

// headSource gives exchange.Import a session's newest head.
type headSource struct {
	c    *s3.Client
	par  int
	head *s3.Head
	res  *PullResult
}

// Records reads the session's newest head.
func (h *headSource) Records(ctx context.Context, session string) ([]exchange.Record, string, error) {
	c := h.c
	heads, err := listHeads(ctx, c, session)
	if err != nil {
		return nil, "", err
	}
	key := newestHead(heads, session)
	if key == "" {
		return nil, "", fmt.Errorf("%w: %s (s3://%s/%s)", ErrRemoteSession, session, c.Bucket, c.Prefix)
	}
	h.res = &PullResult{Session: session, Head: "s3://" + c.Bucket + "/" + c.Prefix + key, Fetched: map[cas.Hash]int{}}
	data, err := c.Get(ctx, c.Prefix+key, s3.MaxHead)
	if err != nil {
		return nil, "", err
	}
	head, err := s3.DecodeHead(data)
	if err == nil && head.Session != session {
		err = fmt.Errorf("%w: head of session %q", s3.ErrCorrupt, head.Session)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w (%s)", err, h.res.Head)
	}
	h.head = head
	return records(head.Records), h.res.Head, nil
}

// Fetch downloads what the store lacks of the packs the head names.
func (h *headSource) Fetch(ctx context.Context, content *cas.Store, roots []cas.Hash) error {
	var packs []cas.Hash
	for _, s := range h.head.Packs {
		id, _ := cas.ParseHash(s)
		packs = append(packs, id)
	}
	ix, err := loadIndexes(ctx, h.c, packs)
	if err != nil {
		return err
	}
	be := content.Backend()
	f := &fetcher{store: content, be: be, c: h.c, ix: ix, res: h.res, par: h.par, batch: be.NewBatch(), spare: map[cas.Hash][]byte{}}
	defer f.batch.Cancel()
	if err := f.run(ctx, roots); err != nil {
		return err
	}
	if err := f.ruleBlobs(ctx, exchange.RuleBlobs(records(h.head.Records))); err != nil {
		return err
	}
	if err := f.batch.Flush(); err != nil {
		return err
	}
	seen := map[cas.Hash]bool{}
	for _, c := range f.chunked {
		if err := content.Verify(ctx, c, seen); err != nil {
			return fmt.Errorf("turnback: pull: content %s: %w", c.Short(), err)
		}
	}
	return nil
}

// fetcher downloads what a pull needs, level by level: the trees it
// lacks, then their subtrees, then content (blobs and chunk lists, then
// chunks), each in as few ranged GETs as the packs allow.
type fetcher struct {
	store   *cas.Store
	be      cas.Backend
	c       *s3.Client
	ix      *remoteIndex
	res     *PullResult
	par     int
	mu      sync.Mutex
	batch   cas.Batch
	chunked []cas.Hash
	// spare: records a ranged GET brought besides those it was for.
	spare map[cas.Hash][]byte
}

// want is one record to download.
type want struct {
	h    cas.Hash
	kind s3.Kind
}

func (f *fetcher) run(ctx context.Context, roots []cas.Hash) error {
	seen := map[cas.Hash]bool{}
	var files []cas.Hash
	level := roots
	for len(level) > 0 {
		var missing []want
		var next []cas.Hash
		trees := map[cas.Hash]*manifest.Tree{}
		for _, h := range level {
			if seen[h] || h.IsZero() || h == manifest.EmptyTreeHash() {
				continue
			}
			seen[h] = true
			if ok, err := f.be.Has(ctx, cas.BlobKey(h)); err != nil {
				return err
			} else if ok {
				t, err := manifest.NewStoreLoader(f.store).LoadTree(ctx, h)
				if err != nil {
					return fmt.Errorf("turnback: pull: local tree %s: %w", h.Short(), err)
				}
				trees[h] = t
				continue
			}
			missing = append(missing, want{h, s3.KindTree})
		}
		var tmu sync.Mutex
		err := f.fetch(ctx, missing, func(w want, content []byte) error {
			t, err := manifest.Decode(content)
			if err != nil {
				return fmt.Errorf("turnback: pull: tree %s: %w", w.h, err)
			}
			tmu.Lock()
			trees[w.h] = t
			tmu.Unlock()
			return nil
		})
		if err != nil {
			return err
		}
		for _, t := range trees {
			dirs, fs := treeChildren(t)
			next = append(next, dirs...)
			files = append(files, fs...)
		}
		level = next
	}
	return f.content(ctx, files)
}

// content downloads the file content the store lacks.
func (f *fetcher) content(ctx context.Context, files []cas.Hash) error {
	var missing []want
	seen := map[cas.Hash]bool{}
	var lists []cas.Hash
	for _, h := range files {
		if seen[h] {
			continue
		}
		seen[h] = true
		if ok, err := f.be.Has(ctx, cas.BlobKey(h)); err != nil {
			return err
		} else if ok {
			continue
		}
		if ok, err := f.be.Has(ctx, cas.IndexKey(h)); err != nil {
			return err
		} else if ok {
			lists = append(lists, h) // its chunks may still be missing
			continue
		}
		loc, ok := f.ix.locs[h]
		if !ok {
			return fmt.Errorf("%w: content %s is in no pack the head names", s3.ErrCorrupt, h)
		}
		missing = append(missing, want{h, loc.e.Kind})
	}
	var chunks []want
	var cmu sync.Mutex
	// addChunks adds the chunks of refs the store lacks and reports
	// whether there were any.
	addChunks := func(refs []cas.ChunkRef) (bool, error) {
		added := false
		for _, c := range refs {
			if seen[c.Hash] {
				continue
			}
			seen[c.Hash] = true
			if ok, err := f.be.Has(ctx, cas.BlobKey(c.Hash)); err != nil {
				return false, err
			} else if !ok {
				chunks = append(chunks, want{c.Hash, s3.KindBlob})
				added = true
			}
		}
		return added, nil
	}
	for _, h := range lists {
		refs, _, err := f.store.Chunks(ctx, h)
		if err != nil {
			return err
		}
		// A chunked file the store holds whole is not read again.
		if added, err := addChunks(refs); err != nil {
			return err
		} else if added {
			f.chunked = append(f.chunked, h)
		}
	}
	var got [][]cas.ChunkRef
	err := f.fetch(ctx, missing, func(w want, content []byte) error {
		if w.kind == s3.KindChunkList {
			refs, err := s3.ParseChunkList(w.h, content)
			if err != nil {
				return err
			}
			cmu.Lock()
			got = append(got, refs)
			f.chunked = append(f.chunked, w.h)
			cmu.Unlock()
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, refs := range got {
		if _, err := addChunks(refs); err != nil {
			return err
		}
	}
	return f.fetch(ctx, chunks, func(want, []byte) error { return nil })
}

// fetch downloads ws (records the head's packs must hold), verifies
// each against its address (a chunk list only parses here; Pull reads
// its chunks back before it records anything), writes it to the batch
// and calls fn with its content. Records of one pack that lie close
// together come in one ranged GET; the records that request brings
// besides (in the gaps) are kept, unverified, for a later round, so no
// record is downloaded twice.
func (f *fetcher) fetch(ctx context.Context, ws []want, fn func(want, []byte) error) error {
	type item struct {
		w   want
		loc remoteLoc
	}
	byPack := map[cas.Hash][]item{}
	for _, w := range ws {
		loc, ok := f.ix.locs[w.h]
		if !ok || loc.e.Kind != w.kind {
			return fmt.Errorf("%w: %s %s is in no pack the head names", s3.ErrCorrupt, w.kind, w.h)
		}
		f.mu.Lock()
		raw, spare := f.spare[w.h]
		delete(f.spare, w.h)
		f.mu.Unlock()
		if spare {
			if err := f.accept(loc, raw, w, fn); err != nil {
				return err
			}
			continue
		}
		byPack[loc.pack] = append(byPack[loc.pack], item{w, loc})
	}
	type span struct {
		pack     cas.Hash
		off, end int64
		items    []item
	}
	const gap, maxSpan = 64 << 10, 16 << 20
	var spans []span
	for id, items := range byPack {
		sort.Slice(items, func(i, j int) bool { return items[i].loc.e.Offset < items[j].loc.e.Offset })
		var cur *span
		for _, it := range items {
			e := it.loc.e
			if cur != nil && e.Offset-cur.end <= gap && e.Offset+e.Length-cur.off <= maxSpan {
				cur.end = e.Offset + e.Length
				cur.items = append(cur.items, it)
				continue
			}
			spans = append(spans, span{pack: id, off: e.Offset, end: e.Offset + e.Length, items: []item{it}})
			cur = &spans[len(spans)-1]
		}
	}
	return forEach(ctx, f.par, spans, func(ctx context.Context, s span) error {
		data, err := f.c.GetRange(ctx, s3.PackKey(f.c.Prefix, s.pack), s.off, s.end-s.off)
		if err != nil {
			return err
		}
		wanted := map[cas.Hash]bool{}
		for _, it := range s.items {
			wanted[it.w.h] = true
			if err := f.accept(it.loc, data[it.loc.e.Offset-s.off:it.loc.e.Offset-s.off+it.loc.e.Length], it.w, fn); err != nil {
				return err
			}
		}
		entries := f.ix.packs[s.pack]
		first := sort.Search(len(entries), func(i int) bool { return entries[i].Offset >= s.off })
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, e := range entries[first:] {
			if e.Offset+e.Length > s.end {
				break
			}
			if !wanted[e.Hash] && f.ix.locs[e.Hash].pack == s.pack && f.res.Fetched[e.Hash] == 0 {
				f.spare[e.Hash] = bytes.Clone(data[e.Offset-s.off : e.Offset-s.off+e.Length])
			}
		}
		return nil
	})
}

// accept verifies raw, the record loc names, writes it to the batch and
// passes its content to fn.
func (f *fetcher) accept(loc remoteLoc, raw []byte, w want, fn func(want, []byte) error) error {
	e, key := loc.e, s3.PackKey(f.c.Prefix, loc.pack)
	var content []byte
	var err error
	if e.Kind == s3.KindChunkList {
		content = raw
		if _, err = s3.ParseChunkList(e.Hash, raw); err != nil {
			return fmt.Errorf("%w (s3://%s/%s)", err, f.c.Bucket, key)
		}
	} else if content, err = s3.VerifyRecord(e.Hash, raw); err != nil {
		return fmt.Errorf("%w (s3://%s/%s)", err, f.c.Bucket, key)
	}
	k := cas.BlobKey(e.Hash)
	if e.Kind == s3.KindChunkList {
		k = cas.IndexKey(e.Hash)
	}
	f.mu.Lock()
	f.res.Fetched[e.Hash]++
	f.res.Objects++
	f.res.RecordBytes += e.Length
	f.mu.Unlock()
	if err := f.batch.Put(k, raw); err != nil {
		return err
	}
	return fn(w, content)
}
