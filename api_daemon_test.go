//go:build unix

package turnback_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/watch/daemon"
)

// twin is one of two identical folders: one opened here, one served by
// a daemon in another process.
type twin struct {
	name  string
	dir   string
	store string
	repo  *turnback.Repo
}

func (w *twin) write(t *testing.T, name, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(w.dir, name), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newTwins makes the folders of a "local" and a "served" twin below
// base, each holding the files given as name, data pairs.
func newTwins(t *testing.T, base string, files ...string) [2]*twin {
	t.Helper()
	var ws [2]*twin
	for i, name := range []string{"local", "served"} {
		w := &twin{name: name, dir: filepath.Join(base, name, "work"), store: filepath.Join(base, name, "store")}
		if err := os.MkdirAll(w.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for j := 0; j+1 < len(files); j += 2 {
			w.write(t, files[j], files[j+1])
		}
		ws[i] = w
	}
	return ws
}

// turnView is what must agree of a turn (times differ).
func turnView(ts []*turnback.Turn) []string {
	var out []string
	for _, t := range ts {
		out = append(out, fmt.Sprintf("%s #%d %q %v %s..%s open=%v by=%s +%d~%d-%d", t.Session, t.N, t.Message, t.Meta,
			t.Before.Short(), t.After.Short(), t.Open(), t.ClosedBy, t.Added, t.Modified, t.Deleted))
	}
	return out
}

func snapView(r *turnback.SnapResult) string {
	var closed []string
	if r.Closed != nil {
		closed = turnView([]*turnback.Turn{r.Closed})
	}
	return fmt.Sprintf("%s %s #%d files=%d bytes=%d closed=%v dropped=%v noopen=%v", r.Snapshot.Short(), r.Session, r.Turn,
		r.Files, r.Bytes, closed, r.Dropped, r.NoOpenTurn)
}

func restoreView(r *turnback.RestoreResult) string {
	if r == nil {
		return "<nil>"
	}
	if r.Moved == nil {
		return "moved is nil"
	}
	var moved []string
	for _, t := range r.Moved {
		moved = append(moved, fmt.Sprintf("%d:%q:%v:%s:%s-%s", t.N, t.Message, t.Meta, t.ClosedBy, t.Before.Short(), t.After.Short()))
	}
	return fmt.Sprintf("turns=%d restored=%v deleted=%v created=%v conflicts=%v notrestorable=%v cp=%s res=%s nothing=%v incomplete=%v paths=%v merged=%v markers=%v dryrun=%+v moved=%v",
		r.Turns, r.Restored, r.Deleted, r.Created, r.Conflicts, r.NotRestorable, r.Checkpoint.Short(), r.Result.Short(), r.Nothing, r.Incomplete(),
		r.Paths, r.Merged, r.Markers, r.DryRun, moved)
}

func errView(err error) string {
	if err == nil {
		return "<nil>"
	}
	var ce *turnback.ConflictError
	return fmt.Sprintf("%v conflict=%v as=%v busy=%v unknown=%v path=%v", err, errors.Is(err, turnback.ErrConflict), errors.As(err, &ce),
		errors.Is(err, turnback.ErrBusy), errors.Is(err, turnback.ErrUnknownID), errors.Is(err, turnback.ErrPath))
}

// TestDaemonRepoSameResults: Open on a folder a daemon (another
// process) serves returns at once (LockWait -1: no wait at all) a Repo
// whose methods run in the daemon, and Snap, End, Undo, Redo, Restore,
// Status, Diff, Turns, Show, Verify and GC return what they return on
// an identical folder without a daemon: the same snapshot ids, turns,
// metadata, paths, conflicts and errors (ErrConflict with its
// *ConflictError, ErrUnknownID). Once the daemon is gone, the same Repo
// goes on in this process.
func TestDaemonRepoSameResults(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	ws := newTwins(t, base, "a.txt", "one\n", "keep.txt", "kept\n")
	_, stop := startDaemon(t, ws[1].dir, ws[1].store, "")
	for _, w := range ws {
		r, err := turnback.Open(ctx, w.dir, turnback.Options{Store: w.store, LockWait: -1, KeepTurns: -1, KeepAge: -1})
		if err != nil {
			t.Fatalf("%s: Open: %v", w.name, err)
		}
		w.repo = r
		defer r.Close()
	}
	if ws[0].repo.Served() || !ws[1].repo.Served() {
		t.Fatalf("Served: local %v, served %v", ws[0].repo.Served(), ws[1].repo.Served())
	}
	same := func(what string, f func(w *twin) string) {
		t.Helper()
		a, b := f(ws[0]), f(ws[1])
		t.Logf("%s: %s", what, a)
		if a != b {
			t.Fatalf("%s differs:\nlocal:  %s\nserved: %s", what, a, b)
		}
	}
	snap := func(msg string, meta map[string]string) {
		t.Helper()
		same("snap "+msg, func(w *twin) string {
			r, err := w.repo.SnapWith(ctx, turnback.SnapOptions{Message: msg, Meta: meta})
			if err != nil {
				return errView(err)
			}
			return snapView(r)
		})
	}
	end := func() {
		t.Helper()
		same("end", func(w *twin) string {
			r, err := w.repo.End(ctx)
			if err != nil {
				return errView(err)
			}
			return snapView(r)
		})
	}
	turns := func() {
		t.Helper()
		same("turns", func(w *twin) string {
			ts, redo, err := w.repo.Turns(ctx)
			return fmt.Sprint(turnView(ts), turnView(redo), errView(err))
		})
	}
	restoring := func(what string, f func(r *turnback.Repo) (*turnback.RestoreResult, error)) {
		t.Helper()
		same(what, func(w *twin) string {
			res, err := f(w.repo)
			var ce *turnback.ConflictError
			if errors.As(err, &ce) {
				return "conflict " + restoreView(ce.Result) + " " + restoreView(res) + " " + errView(err)
			}
			return restoreView(res) + " " + errView(err)
		})
	}
	each := func(f func(w *twin)) {
		for _, w := range ws {
			f(w)
		}
	}

	snap("first", map[string]string{"message_index": "0"})
	each(func(w *twin) { w.write(t, "a.txt", "two\n"); w.write(t, "b.txt", "new\n") })
	end()
	snap("second", map[string]string{"message_index": "2", "prompt_id": "p-2"})
	each(func(w *twin) { w.write(t, "c.txt", "third\n") })
	end()
	turns()
	same("status", func(w *twin) string {
		st, err := w.repo.Status(ctx)
		if err != nil {
			return errView(err)
		}
		return fmt.Sprintf("%s %s %v", st.Base.Short(), st.Current.Short(), st.Changes)
	})
	same("diff", func(w *twin) string {
		ts, _, _ := w.repo.Turns(ctx)
		from, to, diffs, err := w.repo.Diff(ctx, ts[1].Before.String(), ts[0].After.String())
		var ds []string
		for _, d := range diffs {
			ds = append(ds, fmt.Sprintf("%s %s %q %q %v %v", d.Path, d.What, d.OldData, d.NewData, d.Old, d.New))
		}
		return fmt.Sprint(from.Short(), to.Short(), ds, errView(err))
	})
	same("show", func(w *twin) string {
		ts, _, _ := w.repo.Turns(ctx)
		info, err := w.repo.Show(ctx, ts[0].After.String()[:12])
		if err != nil {
			return errView(err)
		}
		var es []string
		for _, e := range info.Entries {
			es = append(es, fmt.Sprintf("%s %+v", e.Path, e.Entry))
		}
		return fmt.Sprint(info.ID.Short(), info.Files, info.Bytes, es, turnView(info.Turns))
	})
	same("turn references", func(w *twin) string {
		a, errA := w.repo.Show(ctx, "@1")
		b, errB := w.repo.Show(ctx, "@2^")
		from, to, diffs, errC := w.repo.Diff(ctx, "@1^", "@2")
		if errA != nil || errB != nil || errC != nil {
			return fmt.Sprint(errView(errA), errView(errB), errView(errC))
		}
		return fmt.Sprint(a.ID.Short(), b.ID.Short(), from.Short(), to.Short(), len(diffs))
	})
	same("show of an unknown id", func(w *twin) string {
		_, err := w.repo.Show(ctx, "ffffffffffff")
		return errView(err)
	})
	restoring("undo 2, dry run", func(r *turnback.Repo) (*turnback.RestoreResult, error) {
		return r.Undo(ctx, 2, turnback.UndoOptions{DryRun: true})
	})
	restoring("undo of one path", func(r *turnback.Repo) (*turnback.RestoreResult, error) {
		return r.Undo(ctx, 1, turnback.UndoOptions{Paths: []string{"c.txt"}})
	})
	turns()
	restoring("redo of the path, dry run", func(r *turnback.Repo) (*turnback.RestoreResult, error) {
		return r.Redo(ctx, 1, turnback.RedoOptions{DryRun: true})
	})
	restoring("redo of the path", func(r *turnback.Repo) (*turnback.RestoreResult, error) { return r.Redo(ctx, 1, turnback.RedoOptions{}) })
	restoring("undo of a path outside", func(r *turnback.Repo) (*turnback.RestoreResult, error) {
		return r.Undo(ctx, 1, turnback.UndoOptions{Paths: []string{"../x"}})
	})
	same("restore dry run", func(w *twin) string {
		ts, _, _ := w.repo.Turns(ctx)
		res, err := w.repo.Restore(ctx, ts[1].Before.String(), turnback.RestoreOptions{DryRun: true})
		return restoreView(res) + " " + errView(err)
	})
	restoring("undo 2", func(r *turnback.Repo) (*turnback.RestoreResult, error) { return r.Undo(ctx, 2, turnback.UndoOptions{}) })
	turns()
	restoring("redo 1", func(r *turnback.Repo) (*turnback.RestoreResult, error) { return r.Redo(ctx, 1, turnback.RedoOptions{}) })
	turns()
	// An edit outside the turns: redo conflicts, and nothing changes.
	each(func(w *twin) { w.write(t, "c.txt", "mine\n") })
	restoring("redo over an edit", func(r *turnback.Repo) (*turnback.RestoreResult, error) { return r.Redo(ctx, 1, turnback.RedoOptions{}) })
	each(func(w *twin) { w.write(t, "b.txt", "edited\n") })
	restoring("undo over an edit", func(r *turnback.Repo) (*turnback.RestoreResult, error) { return r.Undo(ctx, 1, turnback.UndoOptions{}) })
	same("folder after the conflicts", func(w *twin) string { return readTree(t, w.dir) })
	restoring("undo merged, with markers", func(r *turnback.Repo) (*turnback.RestoreResult, error) {
		return r.Undo(ctx, 1, turnback.UndoOptions{Merge: turnback.MergeMarkers, DryRun: true})
	})
	restoring("undo forced", func(r *turnback.Repo) (*turnback.RestoreResult, error) {
		return r.Undo(ctx, 1, turnback.UndoOptions{Force: true})
	})
	restoring("undo with nothing", func(r *turnback.Repo) (*turnback.RestoreResult, error) { return r.Undo(ctx, 1, turnback.UndoOptions{}) })
	restoring("restore of an unknown id", func(r *turnback.Repo) (*turnback.RestoreResult, error) {
		return r.Restore(ctx, "abcdef12", turnback.RestoreOptions{})
	})
	same("verify", func(w *twin) string {
		res, err := w.repo.Verify(ctx)
		return fmt.Sprintf("%+v %s", res, errView(err))
	})
	same("gc dry run", func(w *twin) string {
		res, err := w.repo.GC(ctx, turnback.GCOptions{Keep: 1, DryRun: true})
		if err != nil {
			return errView(err)
		}
		return fmt.Sprint(res.TurnsForgotten, res.SnapshotsForgotten, res.DryRun, len(res.Checkpoints))
	})
	same("another session", func(w *twin) string {
		v, err := w.repo.View(turnback.Options{Session: "other"})
		if err != nil {
			return errView(err)
		}
		r, err := v.Snap(ctx, "in other")
		if err != nil {
			return errView(err)
		}
		list, err := w.repo.Sessions(ctx)
		var names []string
		for _, s := range list {
			names = append(names, s.Name+fmt.Sprint(s.Turns, s.Redo, s.Open))
		}
		return snapView(r) + fmt.Sprint(names, err)
	})
	same("invalid meta", func(w *twin) string {
		_, err := w.repo.SnapWith(ctx, turnback.SnapOptions{Meta: map[string]string{"bad key": "x"}})
		return fmt.Sprint(err, errors.Is(err, turnback.ErrInvalidMeta))
	})
	turns()
	same("folder", func(w *twin) string { return readTree(t, w.dir) })
	info, err := ws[1].repo.Info(ctx)
	if err != nil || info.Turns == 0 {
		t.Fatalf("Info through the daemon: %+v %v", info, err)
	}

	// The daemon goes (stopped, as an idle one does): the same Repo
	// goes on here, never ErrBusy.
	stop()
	snap("after the daemon", map[string]string{"message_index": "9"})
	each(func(w *twin) { w.write(t, "d.txt", "late\n") })
	end()
	turns()
	same("folder at the end", func(w *twin) string { return readTree(t, w.dir) })
}

// readTree lists every file of dir with its content.
func readTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&b, "%s=%q;", rel, data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestDaemonRepoStopsUnderLoad: the daemon is asked to stop (as its idle
// timeout does) while a program calls through it: the calls it had
// accepted finish there, the later ones run in the program once the
// store is free; none fails, none returns ErrBusy, and every turn is
// recorded once, with its meta.
func TestDaemonRepoStopsUnderLoad(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	dir, store := filepath.Join(base, "work"), filepath.Join(base, "store")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	startDaemon(t, dir, store, "")
	repo, err := turnback.Open(ctx, dir, turnback.Options{Store: store, LockWait: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	const n = 30
	stopped := make(chan error, 1)
	for i := 0; i < n; i++ {
		if i == 5 {
			go func() {
				conn, ok := daemon.Dial(store)
				if !ok {
					stopped <- errors.New("no daemon to stop")
					return
				}
				defer conn.Close()
				_, err := daemon.AskStop(conn)
				stopped <- err
			}()
		}
		if _, err := repo.SnapWith(ctx, turnback.SnapOptions{Meta: map[string]string{"i": fmt.Sprint(i)}}); err != nil {
			t.Fatalf("snap %d: %v", i, err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := repo.End(ctx); err != nil {
			t.Fatalf("end %d: %v", i, err)
		}
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	turns, _, err := repo.Turns(ctx)
	if err != nil || len(turns) != n {
		t.Fatalf("%d turns, %v", len(turns), err)
	}
	for i, tn := range turns {
		if tn.Meta["i"] != fmt.Sprint(n-1-i) || tn.Added != 1 {
			t.Fatalf("turn %d: %+v", tn.N, tn)
		}
	}
	if _, ok := daemon.Ping(store); ok {
		t.Fatal("the daemon still serves")
	}
}

// TestDaemonRepoConcurrentSessions: programs on four sessions call the
// daemon at once, each through its own Repo: their turns take turns (a
// turn captures the whole folder, so two sessions' turns must not
// overlap for each to hold only its own edits, with or without a
// daemon), while reads (Turns, Sessions, Status) run between them at any
// moment. Every call succeeds, each undo and redo reverts and reports
// its own session's turn, and each session ends with its own turns,
// metas and files.
func TestDaemonRepoConcurrentSessions(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	dir, store := filepath.Join(base, "work"), filepath.Join(base, "store")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	startDaemon(t, dir, store, "")
	const sessions, rounds = 4, 6
	var turnMu sync.Mutex // one turn at a time in the folder
	errs := make(chan error, sessions)
	for s := 0; s < sessions; s++ {
		name := fmt.Sprintf("agent-%d", s)
		go func() { errs <- concurrentSession(ctx, dir, store, name, rounds, &turnMu) }()
	}
	for s := 0; s < sessions; s++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != sessions*rounds {
		t.Fatalf("%d files, %v", len(ents), err)
	}
}

// concurrentSession is one program of TestDaemonRepoConcurrentSessions.
func concurrentSession(ctx context.Context, dir, store, name string, rounds int, turnMu *sync.Mutex) error {
	repo, err := turnback.Open(ctx, dir, turnback.Options{Store: store, Session: name, LockWait: time.Minute}) // the others' turns in the daemon are waited for
	if err != nil {
		return err
	}
	defer repo.Close()
	if !repo.Served() {
		return errors.New("not served")
	}
	round := func(i int) error {
		turnMu.Lock()
		defer turnMu.Unlock()
		if _, err := repo.SnapWith(ctx, turnback.SnapOptions{Meta: map[string]string{"who": name, "i": fmt.Sprint(i)}}); err != nil {
			return err
		}
		f := fmt.Sprintf("%s-%d.txt", name, i)
		if err := os.WriteFile(filepath.Join(dir, f), []byte(name), 0o644); err != nil {
			return err
		}
		if _, err := repo.End(ctx); err != nil {
			return err
		}
		if i%2 == 0 {
			return nil
		}
		res, err := repo.Undo(ctx, 1, turnback.UndoOptions{})
		if err != nil || res.Turns != 1 || fmt.Sprint(res.Deleted) != "["+f+"]" {
			return fmt.Errorf("%s undo %d: %+v %v", name, i, res, err)
		}
		if res, err = repo.Redo(ctx, 1, turnback.RedoOptions{}); err != nil || res.Turns != 1 || fmt.Sprint(res.Created) != "["+f+"]" {
			return fmt.Errorf("%s redo %d: %+v %v", name, i, res, err)
		}
		return nil
	}
	for i := 0; i < rounds; i++ {
		if _, _, err := repo.Turns(ctx); err != nil {
			return err
		}
		if _, err := repo.Sessions(ctx); err != nil {
			return err
		}
		if _, err := repo.Status(ctx); err != nil {
			return err
		}
		if err := round(i); err != nil {
			return err
		}
	}
	turns, redo, err := repo.Turns(ctx)
	if err != nil {
		return err
	}
	if len(turns) != rounds || len(redo) != 0 {
		return fmt.Errorf("%s: %d turns, %d undone", name, len(turns), len(redo))
	}
	for j, tn := range turns {
		if tn.Meta["who"] != name || tn.Meta["i"] != fmt.Sprint(rounds-1-j) || tn.Added != 1 {
			return fmt.Errorf("%s: turn %+v", name, tn)
		}
	}
	return nil
}
