package turnback_test

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/cas/s3/s3test"
	"github.com/turnback/turnback/internal/remote"
)

// TestModelPull: the model's random sequences with a push and a pull of
// the session now and then (issue 30). The remote only ever holds what
// this store pushed, so a pull never has anything new: it must keep
// every turn, undo and redo made since (NothingNew), or refuse
// (ErrDiverged) when it cannot tell, and never change the folder. After
// each pull the folder and the stacks are checked against the model,
// which a pull does not change.
func TestModelPull(t *testing.T) {
	srv := s3test.Start(t)
	seeds := 4
	if testing.Short() {
		seeds = 2
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		c := srv.Client(t, "model-pull", fmt.Sprintf("seed-%d", seed))
		if err := runModelPull(t, c, 3000+seed, 120); err != nil {
			t.Fatal(err)
		}
	}
}

func runModelPull(t *testing.T, c *s3.Client, seed int64, steps int) (err error) {
	base := t.TempDir()
	h := newHarness(t, seed, false, base)
	defer func() {
		if h.repo != nil {
			h.repo.Close()
		}
		if r := recover(); r != nil {
			msg := fmt.Sprintf("panic: %v\n%s", r, debug.Stack())
			if f, ok := r.(modelFailure); ok {
				msg = f.msg
			}
			err = fmt.Errorf("model pull seed %d failed at step %d: %s\nhistory:\n%s", seed, h.step, msg, strings.Join(h.hist, "\n"))
		}
	}()
	if err := os.MkdirAll(h.dir, 0o755); err != nil {
		return err
	}
	h.open()
	h.initialTree()
	h.check()
	pushed := false
	for h.step = 1; h.step <= steps; h.step++ {
		switch n := h.rng.Intn(12); {
		case n == 0:
			if _, err := remote.Push(h.ctx, h.repo, c, remote.PushOptions{}); err != nil {
				h.failf("push: %v", err)
			}
			pushed = true
			h.logf("push")
		case n == 1 && pushed:
			res, err := remote.Pull(h.ctx, h.repo, c, remote.PullOptions{})
			switch {
			case errors.Is(err, turnback.ErrDiverged):
				h.logf("pull: refused: %v", err)
				h.count("pull refused")
			case err != nil:
				h.failf("pull: %v", err)
			case !res.NothingNew:
				h.failf("pull of this store's own push took the remote's session: %+v", res)
			default:
				h.logf("pull: nothing new")
				h.count("pull kept")
			}
		default:
			h.randomStep()
		}
		h.check()
	}
	h.close()
	return nil
}
