package remote

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/internal/exchange"
	"github.com/turnback/turnback/manifest"
)

// DefaultPackSize is the size a push fills a pack to before it uploads
// it, and DefaultGrace the time after which a remote gc may delete what
// no head names (and a push refuses to write its head).
const (
	DefaultPackSize = 16 << 20
	DefaultGrace    = 24 * time.Hour
	defaultParallel = 4
)

// PushOptions configure Push.
type PushOptions struct {
	// Sessions to push; empty means the Repo's session. All pushes
	// every session of the store.
	Sessions []string
	All      bool
	// Parallel bounds the uploads at once (0: 4); PackSize the pack
	// size (0: DefaultPackSize); Grace the remote gc grace period (0:
	// DefaultGrace).
	Parallel int
	PackSize int
	Grace    time.Duration
	// Progress, if set, is called after each pack is uploaded.
	Progress func(PushProgress)
}

// PushProgress counts a push so far.
type PushProgress struct {
	Packs     int   `json:"packs"`
	BytesSent int64 `json:"bytes_sent"`
}

// PushResult is what Push did.
type PushResult struct {
	Sessions []string `json:"sessions"`
	// Objects is the number of records (trees, blobs, chunk lists)
	// uploaded, in Packs packs; ObjectsDeduplicated those the remote
	// already had, of BytesDeduplicated bytes (stored size).
	Objects             int   `json:"objects"`
	Packs               int   `json:"packs"`
	Heads               int   `json:"heads"`
	ObjectsDeduplicated int   `json:"objects_deduplicated"`
	BytesDeduplicated   int64 `json:"bytes_deduplicated"`
	// BytesSent counts every byte uploaded (packs, indexes, heads);
	// Requests every request made.
	BytesSent int64 `json:"bytes_sent"`
	Requests  int64 `json:"requests"`
}

// Push uploads the sessions' records and everything they reach that the
// remote lacks (see package cas/s3 for the layout and the order that
// keeps a killed push harmless). It holds r's store only while it reads
// the sessions' records; the upload reads content from the store as it
// goes, so the store must stay open until Push returns (StagePush and
// Upload let the caller close it before the upload).
func Push(ctx context.Context, r *turnback.Repo, c *s3.Client, o PushOptions) (*PushResult, error) {
	sp, err := stagePush(ctx, r, c, o, "")
	if err != nil {
		return nil, err
	}
	return sp.Upload(ctx)
}

// stagePush reads what the sessions reach and fills packs with what the
// remote lacks: uploaded as they fill when dir is "", else written to
// files in dir (see StagePush). It returns once every record is placed.
func stagePush(ctx context.Context, r *turnback.Repo, c *s3.Client, o PushOptions, dir string) (*StagedPush, error) {
	if o.Parallel <= 0 {
		o.Parallel = defaultParallel
	}
	if o.PackSize <= 0 {
		o.PackSize = DefaultPackSize
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	start := time.Now()
	jobs, err := pushJobs(ctx, r, o)
	if err != nil {
		return nil, err
	}
	whole, _, pending, err := listRemote(ctx, c)
	if err != nil {
		return nil, err
	}
	usable := whole[:0:0]
	for _, id := range whole {
		if _, ok := pending[id]; !ok {
			usable = append(usable, id) // a pack on a gc list is never reused
		}
	}
	ix, err := loadIndexes(ctx, c, usable)
	if err != nil {
		return nil, err
	}
	sent0, req0 := c.Sent.Load(), c.Requests.Load()
	p := &pusher{store: r.Content(), c: c, o: o, ix: ix, pending: pending, placed: map[cas.Hash]int{}, res: &PushResult{}, stage: dir}
	p.g, p.gctx = errgroup.WithContext(ctx)
	p.g.SetLimit(o.Parallel)
	p.trees.kind, p.blobs.kind = s3.KindTree, s3.KindBlob
	for i := range jobs {
		j := &jobs[i]
		deps := map[int]bool{}
		seen := map[cas.Hash]bool{}
		for _, h := range j.roots {
			if err := p.tree(ctx, h, deps, seen); err != nil {
				p.cancel()
				return nil, err
			}
			// A state's new records end its packs: stores that push the
			// same state (a shared base) fill the same packs.
			p.seal(&p.trees)
			p.seal(&p.blobs)
		}
		if err := p.ruleBlobs(ctx, j.blobs, deps, seen); err != nil {
			p.cancel()
			return nil, err
		}
		j.packs = deps
	}
	p.seal(&p.trees)
	p.seal(&p.blobs)
	if dir != "" {
		// The packs are on disk: nothing of the store is read again.
		if err := p.g.Wait(); err != nil {
			return nil, err
		}
	}
	return &StagedPush{p: p, jobs: jobs, start: start, sent0: sent0, req0: req0}, nil
}

// pushJob is one session to push: its records, its states in history
// order, and the packs that hold what they reach (references, see
// pusher.packID).
type pushJob struct {
	name  string
	recs  []s3.Record
	roots []cas.Hash
	// blobs: the rule blobs its states' records name (exchange.RuleBlobs).
	blobs []cas.Hash
	packs map[int]bool
}

// pushJobs reads the records of the sessions to push, holding the store
// only meanwhile: the upload that follows reads content (which only gc
// removes: then the push fails and is run again) while agents go on.
func pushJobs(ctx context.Context, r *turnback.Repo, o PushOptions) ([]pushJob, error) {
	exp, err := exchange.Export(ctx, r, o.Sessions, o.All)
	if errors.Is(err, turnback.ErrBadSession) {
		return nil, fmt.Errorf("%w (push cannot name it on the remote)", err)
	}
	if err != nil {
		return nil, err
	}
	jobs := make([]pushJob, len(exp))
	for i, e := range exp {
		recs := make([]s3.Record, len(e.Records))
		for j, rec := range e.Records {
			recs[j] = s3.Record(rec)
		}
		jobs[i] = pushJob{name: e.Name, recs: recs, roots: e.Roots, blobs: exchange.RuleBlobs(e.Records)}
	}
	return jobs, nil
}

// writeHead writes head unless the session's newest head has the same
// body (a push with nothing new writes nothing).
func writeHead(ctx context.Context, c *s3.Client, head *s3.Head) (bool, error) {
	body := s3.EncodeHead(head)
	sum := cas.Sum(body)
	key := s3.HeadKey(c.Prefix, head.Session, time.Now().UnixNano(), sum)
	if key == "" {
		return false, turnback.ValidSession(head.Session)
	}
	heads, err := listHeads(ctx, c, head.Session)
	if err != nil {
		return false, err
	}
	if newest := newestHead(heads, head.Session); newest != "" {
		if _, _, s, _ := s3.ParseHeadKey(newest); s == sum.String()[:32] {
			return false, nil
		}
	}
	return true, c.Put(ctx, key, body)
}

// listHeads lists the objects in every folder session's heads may be in
// (s3.HeadsDirs).
func listHeads(ctx context.Context, c *s3.Client, session string) ([]s3.Object, error) {
	var out []s3.Object
	for _, dir := range s3.HeadsDirs("", session) {
		objs, err := c.List(ctx, dir)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// newestHead returns the key (relative to the prefix) of the newest
// head of session among objs (by the time in its name), or "".
func newestHead(objs []s3.Object, session string) string {
	best, bestN := "", int64(-1)
	for _, o := range objs {
		if s, n, _, ok := s3.ParseHeadKey(o.Key); ok && s == session && (n > bestN || n == bestN && o.Key > best) {
			best, bestN = o.Key, n
		}
	}
	return best
}

// pusher fills packs with what the remote lacks and uploads them.
type pusher struct {
	store *cas.Store
	c     *s3.Client
	o     PushOptions
	ix    *remoteIndex
	// pending: packs on gc lists when the push started (never reused,
	// never rewritten under the same name).
	pending map[cas.Hash]time.Time
	// placed: records added in this push -> their pack's reference
	// (see packID); refs count from 1, existing packs are negative
	// refs into existing.
	placed   map[cas.Hash]int
	existing []cas.Hash
	extRef   map[cas.Hash]int
	mu       sync.Mutex
	ids      []cas.Hash // sealed packs, by ref-1
	trees    packBuilder
	blobs    packBuilder
	g        *errgroup.Group
	gctx     context.Context
	res      *PushResult
	sent     atomic.Int64
	// stage: the directory packs are written to instead of being
	// uploaded at once (StagePush), with staged the packs' ids in order.
	stage  string
	staged []cas.Hash
}

type packBuilder struct {
	kind    s3.Kind
	ref     int // ref of the pack being filled, 0 for none
	data    []byte
	entries []s3.Entry
}

func (p *pusher) cancel() { p.seal(nil); _ = p.g.Wait() }

// packID returns the id of the pack a reference names.
func (p *pusher) packID(ref int) cas.Hash {
	if ref < 0 {
		return p.existing[-ref-1]
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ids[ref-1]
}

// place returns the pack reference of record h, adding it (raw, of kind
// k) to a new pack when the remote lacks it.
func (p *pusher) place(h cas.Hash, k s3.Kind, raw func() ([]byte, error)) (int, error) {
	if ref, ok := p.placed[h]; ok {
		return ref, nil
	}
	if loc, ok := p.ix.locs[h]; ok {
		if p.extRef == nil {
			p.extRef = map[cas.Hash]int{}
		}
		ref, ok := p.extRef[loc.pack]
		if !ok {
			p.existing = append(p.existing, loc.pack)
			ref = -len(p.existing)
			p.extRef[loc.pack] = ref
		}
		p.placed[h] = ref
		p.res.ObjectsDeduplicated++
		p.res.BytesDeduplicated += loc.e.Length
		return ref, nil
	}
	data, err := raw()
	if err != nil {
		return 0, err
	}
	b := &p.blobs
	if k == s3.KindTree {
		b = &p.trees
	}
	if b.ref == 0 {
		p.mu.Lock()
		p.ids = append(p.ids, cas.Hash{})
		b.ref = len(p.ids)
		p.mu.Unlock()
		// The pack grows as records come: most pushes are a few small
		// records, and 17 MB set aside for each cost more than the push.
		b.data = append(make([]byte, 0, 64<<10), s3.PackHeader...)
	}
	b.entries = append(b.entries, s3.Entry{Kind: k, Hash: h, Offset: int64(len(b.data)), Length: int64(len(data))})
	b.data = append(b.data, data...)
	ref := b.ref
	p.placed[h] = ref
	p.res.Objects++
	if cutAfter(h, len(data), p.o.PackSize) || len(b.data) >= 4*p.o.PackSize {
		p.seal(b)
	}
	return ref, nil
}

// cutAfter says whether a pack ends after record h of size n: with
// probability n/target, decided by h alone, so that packs are about
// target bytes and their boundaries depend only on their content (two
// stores pushing the same records fill the same packs, whatever else
// each pushes).
func cutAfter(h cas.Hash, n, target int) bool {
	v := float64(binary.BigEndian.Uint64(h[:8])) / (1 << 64)
	return v < float64(n)/float64(target)
}

// seal uploads the pack b is filling: the pack, then its index. A nil b
// only waits for a place (cancel uses it to stop).
func (p *pusher) seal(b *packBuilder) {
	if b == nil || b.ref == 0 {
		return
	}
	data, entries, ref := b.data, b.entries, b.ref
	b.ref, b.data, b.entries = 0, nil, nil
	id := cas.Sum(data)
	if _, listed := p.pending[id]; listed {
		// The same pack is on a gc list: a later run may delete it
		// before this push's head is seen. Bytes after the last record
		// give the pack another name.
		var nonce [16]byte
		_, _ = rand.Read(nonce[:])
		data = append(data, nonce[:]...)
		id = cas.Sum(data)
	}
	p.mu.Lock()
	p.ids[ref-1] = id
	p.mu.Unlock()
	p.res.Packs++
	idx := s3.EncodeIndex(int64(len(data)), entries)
	if p.stage != "" {
		p.staged = append(p.staged, id)
		p.g.Go(func() error { return writeStaged(p.stage, id, data, idx) })
		return
	}
	p.g.Go(func() error { return p.upload(p.gctx, id, data, idx) })
}

// upload puts pack id and then its index.
func (p *pusher) upload(ctx context.Context, id cas.Hash, data, idx []byte) error {
	if err := p.c.Put(ctx, s3.PackKey(p.c.Prefix, id), data); err != nil {
		return err
	}
	if err := p.c.Put(ctx, s3.IndexKey(p.c.Prefix, id), idx); err != nil {
		return err
	}
	n := p.sent.Add(int64(len(data) + len(idx)))
	if p.o.Progress != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.o.Progress(PushProgress{Packs: len(p.ids), BytesSent: n})
	}
	return nil
}

// tree places tree h and everything under it, adding the packs they sit
// in to deps; seen skips what this session already placed.
func (p *pusher) tree(ctx context.Context, h cas.Hash, deps map[int]bool, seen map[cas.Hash]bool) error {
	if seen[h] || h.IsZero() || h == manifest.EmptyTreeHash() {
		return nil
	}
	seen[h] = true
	if err := p.gctx.Err(); err != nil {
		return p.g.Wait()
	}
	ref, err := p.place(h, s3.KindTree, func() ([]byte, error) { return p.store.Record(ctx, cas.BlobKey(h)) })
	if err != nil {
		return fmt.Errorf("turnback: push: tree %s: %w", h.Short(), err)
	}
	deps[ref] = true
	data, err := p.store.GetBlob(ctx, h)
	if err != nil {
		return fmt.Errorf("turnback: push: tree %s: %w", h.Short(), err)
	}
	t, err := manifest.Decode(data)
	if err != nil {
		return fmt.Errorf("turnback: push: tree %s: %w", h.Short(), err)
	}
	dirs, files := treeChildren(t)
	for _, f := range files {
		if seen[f] {
			continue
		}
		seen[f] = true
		if err := p.content(ctx, f, deps); err != nil {
			return err
		}
	}
	for _, d := range dirs {
		if err := p.tree(ctx, d, deps, seen); err != nil {
			return err
		}
	}
	return nil
}

// content places file content h: its blob, or its chunk list and chunks.
func (p *pusher) content(ctx context.Context, h cas.Hash, deps map[int]bool) error {
	refs, chunked, err := p.store.Chunks(ctx, h)
	if err != nil {
		return fmt.Errorf("turnback: push: content %s: %w", h.Short(), err)
	}
	get := func(key []byte) func() ([]byte, error) {
		return func() ([]byte, error) { return p.store.Record(ctx, key) }
	}
	if !chunked {
		ref, err := p.place(h, s3.KindBlob, get(cas.BlobKey(h)))
		if err != nil {
			return fmt.Errorf("turnback: push: content %s: %w", h.Short(), err)
		}
		deps[ref] = true
		return nil
	}
	ref, err := p.place(h, s3.KindChunkList, get(cas.IndexKey(h)))
	if err != nil {
		return fmt.Errorf("turnback: push: chunk list %s: %w", h.Short(), err)
	}
	deps[ref] = true
	for _, c := range refs {
		ref, err := p.place(c.Hash, s3.KindBlob, get(cas.BlobKey(c.Hash)))
		if err != nil {
			return fmt.Errorf("turnback: push: chunk %s of %s: %w", c.Hash.Short(), h.Short(), err)
		}
		deps[ref] = true
	}
	return nil
}
