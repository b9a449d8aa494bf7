//go:build unix

package turnback_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/turnback/turnback"
)

// TestDaemonRepoTurnsAndRecover: the methods the CLI's log, show @N,
// diff @N and recover use (AllTurns, UnprotectedChanges, ShowTurn,
// DiffTurn, Recover) return through a daemon what they return without
// one, errors included (ErrNoTurn, which is also ErrUnknownID;
// ErrOpenTurn; ErrBadRef).
func TestDaemonRepoTurnsAndRecover(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	ws := newTwins(t, base, "a.txt", "one\n")
	t.Setenv(envDaemonSizeLimit, "16") // as the local twin's
	startDaemon(t, ws[1].dir, ws[1].store, "")
	for _, w := range ws {
		r, err := turnback.Open(ctx, w.dir, turnback.Options{Store: w.store, LockWait: -1, KeepTurns: -1, KeepAge: -1,
			SizeLimit: 16})
		if err != nil {
			t.Fatalf("%s: Open: %v", w.name, err)
		}
		defer r.Close()
		w.repo = r
	}
	if ws[0].repo.Served() || !ws[1].repo.Served() {
		t.Fatal("one local, one served, expected")
	}
	same := func(what string, f func(w *twin) string) {
		t.Helper()
		a, b := f(ws[0]), f(ws[1])
		t.Logf("%s: %s", what, a)
		if a != b {
			t.Fatalf("%s differs:\nlocal:  %s\nserved: %s", what, a, b)
		}
	}
	refErr := func(err error) string {
		return fmt.Sprintf("%v noturn=%v unknown=%v open=%v badref=%v", err, errors.Is(err, turnback.ErrNoTurn),
			errors.Is(err, turnback.ErrUnknownID), errors.Is(err, turnback.ErrOpenTurn), errors.Is(err, turnback.ErrBadRef))
	}
	for _, w := range ws {
		for _, step := range []func() error{
			func() error { _, err := w.repo.Snap(ctx, "first"); return err },
			func() error {
				w.write(t, "a.txt", "two\n")
				w.write(t, "big.bin", "more than sixteen bytes\n")
				return nil
			},
			func() error { _, err := w.repo.End(ctx); return err },
			func() error {
				v, err := w.repo.View(turnback.Options{Session: "other", SizeLimit: 16})
				_, _ = v.Snap(ctx, "x")
				return err
			},
			func() error { _, err := w.repo.Snap(ctx, "second"); return err },
			func() error { return os.Remove(filepath.Join(w.dir, "big.bin")) },
			func() error { _, err := w.repo.End(ctx); return err },
			func() error { _, err := w.repo.Snap(ctx, "open"); return err },
		} {
			if err := step(); err != nil {
				t.Fatalf("%s: %v", w.name, err)
			}
		}
	}
	same("all turns", func(w *twin) string {
		all, err := w.repo.AllTurns(ctx)
		var out []string
		for _, s := range all {
			out = append(out, fmt.Sprintf("%s turns=%d redo=%d open=%v %q %v %v", s.Name, s.SessionInfo.Turns, s.SessionInfo.Redo, s.Open, s.LastMessage,
				turnView(s.Turns), turnView(s.Redo)))
		}
		return fmt.Sprint(out, err)
	})
	same("unprotected", func(w *twin) string {
		ts, _, err := w.repo.Turns(ctx)
		if err != nil {
			return err.Error()
		}
		m, err := w.repo.UnprotectedChanges(ctx, ts)
		return fmt.Sprint(m, err)
	})
	for _, n := range []int{1, 2, 3, 9} {
		same(fmt.Sprintf("show and diff @%d", n), func(w *twin) string {
			var out []string
			for _, f := range []func(context.Context, int) (*turnback.TurnChanges, error){w.repo.ShowTurn, w.repo.DiffTurn} {
				tc, err := f(ctx, n)
				if err != nil {
					out = append(out, refErr(err))
					continue
				}
				var fs []string
				for _, d := range tc.Files {
					fs = append(fs, fmt.Sprintf("%s %s %q %q %v %v", d.Path, d.What, d.OldData, d.NewData, d.Old, d.New))
				}
				out = append(out, fmt.Sprint(turnView([]*turnback.Turn{tc.Turn}), tc.Undone, fs))
			}
			return fmt.Sprint(out)
		})
	}
	same("bad references", func(w *twin) string {
		_, err1 := w.repo.Show(ctx, "@0")
		_, err2 := w.repo.Show(ctx, "abc")
		return refErr(err1) + " / " + refErr(err2)
	})
	same("recover with nothing to recover", func(w *twin) string {
		res, err := w.repo.Recover(ctx, false)
		return fmt.Sprintf("%+v %v", res, err)
	})
}
