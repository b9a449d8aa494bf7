package restore

import (
	"context"
	"io"
	"sync"

	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/manifest"
)

// Staging reads each file's content from the Source (a store read,
// decoded and checked against its hash) and then creates and writes the
// staged file. A prefetcher reads the content of the next small files
// in another goroutine meanwhile, so that the reads of one file overlap
// the file system work of the one before. What it reads is handed to
// staging as Source.Open would have returned it, errors included;
// nothing else changes.

const (
	// prefetchMax: files up to this size are read ahead (a store reads
	// them whole on Open); larger ones, chunked, are streamed by staging.
	prefetchMax = cas.SmallFileMax
	// prefetchAhead: files read ahead and not yet taken, at most.
	prefetchAhead = 8
)

// prefetcher is a Source that reads ahead the content of files a plan
// stages, in plan order.
type prefetcher struct {
	src    Source
	cancel context.CancelFunc
	done   chan struct{}
	slots  chan struct{} // one per file read ahead and not yet taken

	mu sync.Mutex
	m  map[cas.Hash]*fetch
}

// fetch is the content of one hash, read ahead or being read.
type fetch struct {
	state  int           // waiting, reading (read once ready is closed), or direct: opened by staging
	handed bool          // given to staging: a second Open of h opens afresh
	ready  chan struct{} // closed once r and err are set
	r      io.Reader
	err    error
}

const (
	waiting = iota
	reading
	direct
)

// startPrefetch starts reading ahead the content of the files plan
// stages, or returns nil when fewer than two are worth it. stop must be
// called once staging is over.
func startPrefetch(ctx context.Context, src Source, actions []Action) *prefetcher {
	var hashes []cas.Hash
	seen := map[cas.Hash]bool{}
	for i := range actions {
		a := &actions[i]
		if !a.writesFile() || a.New.Kind != manifest.KindFile || a.New.LinkTo != "" || a.New.Size > prefetchMax || seen[a.New.Hash] {
			continue
		}
		seen[a.New.Hash] = true
		hashes = append(hashes, a.New.Hash)
	}
	if len(hashes) < 2 || src == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	p := &prefetcher{src: src, cancel: cancel, done: make(chan struct{}), slots: make(chan struct{}, prefetchAhead), m: map[cas.Hash]*fetch{}}
	for _, h := range hashes {
		p.m[h] = &fetch{ready: make(chan struct{})}
	}
	go p.run(ctx, hashes)
	return p
}

func (p *prefetcher) run(ctx context.Context, hashes []cas.Hash) {
	defer close(p.done)
	for _, h := range hashes {
		if ctx.Err() != nil {
			return
		}
		select {
		case p.slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		f := p.m[h]
		p.mu.Lock()
		if f.state == direct {
			p.mu.Unlock()
			<-p.slots
			continue
		}
		f.state = reading
		p.mu.Unlock()
		f.r, f.err = p.src.Open(ctx, h)
		close(f.ready)
	}
}

// Open implements Source: the content read ahead (once per hash: a
// second file of the same content is opened afresh), waiting for a read
// under way; content whose read has not started is opened here.
func (p *prefetcher) Open(ctx context.Context, h cas.Hash) (io.Reader, error) {
	p.mu.Lock()
	f, ok := p.m[h]
	if !ok || f.handed || f.state == direct {
		p.mu.Unlock()
		return p.src.Open(ctx, h)
	}
	if f.state == waiting {
		f.state = direct // run skips it
		p.mu.Unlock()
		return p.src.Open(ctx, h)
	}
	f.handed = true
	p.mu.Unlock()
	select {
	case <-f.ready:
		<-p.slots
		return f.r, f.err
	case <-ctx.Done():
		// No one takes what the read yields: stop closes it.
		p.mu.Lock()
		f.handed = false
		p.mu.Unlock()
		return nil, ctx.Err()
	}
}

// stop ends the reading ahead and waits for it; content read and not
// taken is dropped (closed, if it holds a file open).
func (p *prefetcher) stop() {
	p.cancel()
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.m {
		if f.state != reading || f.handed {
			continue
		}
		f.handed = true
		if c, ok := f.r.(io.Closer); ok {
			_ = c.Close()
		}
	}
}
