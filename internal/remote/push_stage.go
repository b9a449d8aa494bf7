package remote

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas"
	"github.com/turnback/turnback/cas/s3"
)

// StagedPush is a push whose records are placed: Upload sends what is
// left and writes the sessions' heads. Made by Push (packs uploaded as
// they filled; Upload waits for them) or StagePush (packs on disk;
// Upload needs no store).
type StagedPush struct {
	p           *pusher
	jobs        []pushJob
	start       time.Time
	sent0, req0 int64
}

// StagePush is Push's first half, for a caller that must release the
// store before a long upload (the CLI: a snap waits for a push that
// holds the store). It reads every record the sessions reach that the
// remote lacks into packs written in dir (an empty directory the caller
// made and removes), and returns once they are there. Between StagePush
// and Upload the store may be closed: Upload reads only dir. It talks to
// the remote to know what it lacks (its packs' indexes).
func StagePush(ctx context.Context, r *turnback.Repo, c *s3.Client, o PushOptions, dir string) (*StagedPush, error) {
	if dir == "" {
		return nil, fmt.Errorf("turnback: push: no staging directory")
	}
	return stagePush(ctx, r, c, o, dir)
}

// Upload uploads the staged packs (each pack, then its index), then the
// sessions' heads, newest last; see Push.
func (sp *StagedPush) Upload(ctx context.Context) (*PushResult, error) {
	p := sp.p
	if p.stage != "" {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(p.o.Parallel)
		for _, id := range p.staged {
			g.Go(func() error {
				data, idx, err := readStaged(p.stage, id)
				if err != nil {
					return err
				}
				return p.upload(gctx, id, data, idx)
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
	} else if err := p.g.Wait(); err != nil {
		return nil, err
	}
	c := p.c
	for _, j := range sp.jobs {
		if time.Since(sp.start) > p.o.Grace {
			return nil, fmt.Errorf("turnback: push: took longer than the remote gc grace period (%s); push again", p.o.Grace)
		}
		// No Store: the folder's path is nobody's business on the bucket.
		head := &s3.Head{Session: j.name, Records: j.recs}
		for ref := range j.packs {
			head.Packs = append(head.Packs, p.packID(ref).String())
		}
		wrote, err := writeHead(ctx, c, head)
		if err != nil {
			return nil, err
		}
		if wrote {
			p.res.Heads++
		}
		p.res.Sessions = append(p.res.Sessions, j.name)
	}
	p.res.BytesSent = c.Sent.Load() - sp.sent0
	p.res.Requests = c.Requests.Load() - sp.req0
	return p.res, nil
}

// writeStaged writes pack id and its index into dir.
func writeStaged(dir string, id cas.Hash, data, idx []byte) error {
	for _, f := range []struct {
		name string
		b    []byte
	}{{id.String() + ".pack", data}, {id.String() + ".idx", idx}} {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.b, 0o600); err != nil {
			return fmt.Errorf("turnback: push: stage pack %s: %w", id.Short(), err)
		}
	}
	return nil
}

// readStaged reads pack id and its index back from dir.
func readStaged(dir string, id cas.Hash) (data, idx []byte, err error) {
	if data, err = os.ReadFile(filepath.Join(dir, id.String()+".pack")); err == nil {
		idx, err = os.ReadFile(filepath.Join(dir, id.String()+".idx"))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("turnback: push: staged pack %s: %w", id.Short(), err)
	}
	return data, idx, nil
}
