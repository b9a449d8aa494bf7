package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
	wd "github.com/turnback/turnback/watch/daemon"
)

// Listed is one daemon as watch --list reports it.
type Listed struct {
	PID      int       `json:"pid"`
	WorkTree string    `json:"work_tree"`
	Store    string    `json:"store"`
	Socket   string    `json:"socket,omitempty"`
	Since    time.Time `json:"since"`
	// IdleSeconds: since its last command ended (0 while one runs);
	// null when the daemon does not answer.
	IdleSeconds *float64 `json:"idle_seconds"`
	IdleTimeout string   `json:"idle_timeout,omitempty"`
	Requests    *int64   `json:"requests"`
	RSSBytes    int64    `json:"rss_bytes"`
	Answering   bool     `json:"answering"`
	// Problems: "store gone", "folder gone", "not answering".
	Problems []string `json:"problems"`
	// The paths exactly (base64) when they are not valid UTF-8.
	WorkTreeBytes string `json:"work_tree_bytes,omitempty"`
	StoreBytes    string `json:"store_bytes,omitempty"`

	ticks uint64 // process identity, for signals
}

// Find lists this user's watch daemons, oldest first: those the
// registry notes (see wd.Notes), each asked over its socket, and
// those that answer on a socket of a store in the default location or
// in the per-user socket directory without a note (a daemon of an
// earlier turnback). No process table is read, so it lists the same
// wherever the daemon runs. A noted daemon that does not answer is
// listed when its process is known to be the one that wrote the note
// (Linux), so that --stop-all can signal it.
func Find() ([]Listed, error) {
	notes, err := wd.Notes()
	if err != nil {
		return nil, fmt.Errorf("turnback: watch: list daemons: %w", err)
	}
	var out []Listed
	seen := map[int]bool{}
	socks := map[string]bool{}
	for _, n := range notes {
		d := Listed{PID: n.PID, WorkTree: string(n.WorkTree), Store: string(n.Store), Socket: string(n.Socket),
			Since: n.Since.UTC(), RSSBytes: wd.ProcRSS(n.PID), ticks: n.Ticks, Problems: []string{}}
		out = append(out, d)
		seen[n.PID], socks[d.Socket] = true, true
	}
	// Asked all at once: one that does not answer costs its second
	// once, not once per daemon after it.
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range out {
		d := &out[i]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if wd.CheckSocketDir(filepath.Dir(d.Socket)) != nil {
				return
			}
			if info, ok := wd.PingSocket(d.Socket, time.Second); ok && info.PID == d.PID {
				d.fill(info)
			}
		}()
	}
	wg.Wait()
	// Without a note: a daemon of an earlier turnback, listening beside
	// a store in the default location or in the per-user directory.
	var more []string
	sockDir := wd.SocketDir()
	if wd.CheckSocketDir(sockDir) == nil {
		ents, _ := os.ReadDir(sockDir)
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".sock") {
				more = append(more, filepath.Join(sockDir, e.Name()))
			}
		}
	}
	if root, err := turnback.DefaultStoreRoot(); err == nil {
		ents, _ := os.ReadDir(root)
		for _, e := range ents {
			if p := wd.SocketPath(filepath.Join(root, e.Name())); e.IsDir() && filepath.Dir(p) != sockDir {
				more = append(more, p)
			}
		}
	}
	for _, sock := range more {
		if _, err := os.Lstat(sock); err != nil || socks[sock] {
			continue
		}
		if info, ok := wd.PingSocket(sock, time.Second); ok && !seen[info.PID] {
			d := Listed{PID: info.PID, Problems: []string{}}
			d.fill(info)
			out = append(out, d)
			seen[info.PID] = true
		}
	}
	// A noted daemon that does not answer, and whose identity is not
	// known, may be another process given its pid: not listed.
	out = slices.DeleteFunc(out, func(d Listed) bool { return !d.Answering && d.ticks == 0 })
	for i := range out {
		d := &out[i]
		if !d.Answering {
			d.Problems = append(d.Problems, "not answering")
		}
		if !hasString(d.Problems, "store gone") && d.Store != "" && !storeThere(d.Store) {
			d.Problems = append(d.Problems, "store gone")
		}
		if _, err := os.Stat(d.WorkTree); d.WorkTree != "" && errors.Is(err, os.ErrNotExist) {
			d.Problems = append(d.Problems, "folder gone")
		}
		sort.Strings(d.Problems)
		d.WorkTreeBytes, d.StoreBytes = termout.JSONBytes(d.WorkTree), termout.JSONBytes(d.Store)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Since.Equal(out[j].Since) {
			return out[i].Since.Before(out[j].Since)
		}
		return out[i].PID < out[j].PID
	})
	return out, nil
}

// fill takes what the daemon said of itself.
func (d *Listed) fill(info *wd.Info) {
	d.Answering = true
	// The daemon's JSON answer cannot carry a path that is not valid
	// UTF-8; the note gave the exact one.
	if d.WorkTree == "" || utf8.ValidString(d.WorkTree) {
		d.WorkTree = info.WorkTree
	}
	if d.Store == "" || utf8.ValidString(d.Store) {
		d.Store = info.Store
	}
	d.Socket = info.Socket
	d.Since = info.Since.UTC()
	if info.RSSBytes > 0 {
		d.RSSBytes = info.RSSBytes
	}
	idle, n := info.IdleSeconds, info.Requests
	d.IdleSeconds, d.Requests, d.IdleTimeout = &idle, &n, info.IdleTimeout
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// storeThere reports whether the store's database is where it was.
func storeThere(store string) bool {
	_, err := os.Stat(filepath.Join(store, "db", "MANIFEST"))
	return err == nil
}

// Under keeps the daemons whose folder or store is dir or below it.
func Under(list []Listed, dir string) ([]Listed, error) {
	if dir == "" {
		return list, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	roots := []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		roots = append(roots, real)
	}
	var out []Listed
	for _, d := range list {
		for _, r := range roots {
			if pathWithin(r, d.WorkTree) || pathWithin(r, d.Store) {
				out = append(out, d)
				break
			}
		}
	}
	return out, nil
}

func pathWithin(root, p string) bool {
	if p == "" {
		return false
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// FindUnder is Find, keeping the daemons whose folder or store is dir or
// below it ("": all).
func FindUnder(dir string) ([]Listed, error) {
	list, err := Find()
	if err != nil {
		return nil, err
	}
	return Under(list, dir)
}

// Stopped is one daemon watch --stop-all dealt with.
type Stopped struct {
	PID      int    `json:"pid"`
	WorkTree string `json:"work_tree"`
	Store    string `json:"store"`
	// By: "socket" (asked, it released the store), "SIGTERM", or
	// "" for one still running (in survivors).
	By            string `json:"by,omitempty"`
	WorkTreeBytes string `json:"work_tree_bytes,omitempty"`
	StoreBytes    string `json:"store_bytes,omitempty"`
}

// StopAll is watch --stop-all: it stops every daemon whose folder or
// store is in dir ("": all; see Stop) and prints those it stopped on
// stdout and those that survived on stderr. It returns the number of
// survivors.
func StopAll(stdout, stderr io.Writer, dir string, asJSON bool) (int, error) {
	list, err := FindUnder(dir)
	if err != nil {
		return 0, err
	}
	var stopped, survivors []Stopped
	for _, d := range list {
		s := Stopped{PID: d.PID, WorkTree: d.WorkTree, Store: d.Store, WorkTreeBytes: d.WorkTreeBytes, StoreBytes: d.StoreBytes}
		if s.By = Stop(d); s.By != "" {
			stopped = append(stopped, s)
		} else {
			survivors = append(survivors, s)
		}
	}
	if asJSON {
		termout.WriteJSON(stdout, map[string]any{"stopped": termout.NonNil(stopped), "survivors": termout.NonNil(survivors)})
	} else {
		if len(list) == 0 {
			fmt.Fprintln(stdout, "no watch daemons")
		}
		for _, s := range stopped {
			fmt.Fprintf(stdout, "stopped pid %d (%s) of %s\n", s.PID, s.By, termout.QuotePath(s.WorkTree))
		}
	}
	for _, s := range survivors {
		fmt.Fprintf(stderr, "turnback: watch --stop-all: pid %d of %s still runs after SIGTERM (kill -KILL %d ends it)\n", s.PID, termout.QuotePath(s.WorkTree), s.PID)
	}
	return len(survivors), nil
}

// stopGrace bounds each step of stopping one daemon.
const stopGrace = 3 * time.Second

// Stop stops one daemon: over its socket if it answers, else (or
// if it is still there after) by SIGTERM. It returns how, or "" if the
// process survived.
func Stop(d Listed) string {
	if d.Answering && d.Store != "" {
		if conn, ok := wd.Dial(d.Store); ok {
			_ = conn.SetDeadline(time.Now().Add(stopGrace))
			_, _ = wd.AskStop(conn)
			conn.Close()
			if waitProcGone(d.PID, d.ticks, stopGrace) {
				return "socket"
			}
		}
	}
	if d.PID <= 0 || d.PID == os.Getpid() {
		return ""
	}
	_ = wd.SignalProc(d.PID, d.ticks, syscall.SIGTERM)
	if waitProcGone(d.PID, d.ticks, stopGrace) {
		return "SIGTERM"
	}
	return ""
}

func waitProcGone(pid int, ticks uint64, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for wd.ProcAlive(pid, ticks) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// OfStore returns the daemons serving store (for info and gc).
func OfStore(list []Listed, store string) []Listed {
	var out []Listed
	for _, d := range list {
		if d.Store != "" && (d.Store == store || SameDir(d.Store, store)) {
			out = append(out, d)
		}
	}
	return out
}

// OrphanDoc is a store gc --stores reports, with the daemon that served
// it (stopped before the store is removed).
type OrphanDoc struct {
	turnback.OrphanStore
	DaemonPID int `json:"daemon_pid,omitempty"`
}

// OfOrphans finds the daemons of the stores gc --stores would remove
// and returns their pids by store; with stop, it stops them (saying so
// on stderr), so that the stores are free to go. A daemon that does not
// stop keeps its store.
func OfOrphans(ctx context.Context, stderr io.Writer, stop bool) map[string]int {
	pre, err := turnback.OrphanStores(ctx, false)
	if err != nil || len(pre) == 0 {
		return nil
	}
	all, err := Find()
	if err != nil {
		return nil
	}
	pids := map[string]int{}
	for _, o := range pre {
		for _, d := range OfStore(all, o.Store) {
			pids[o.Store] = d.PID
			if !stop {
				continue
			}
			if by := Stop(d); by != "" {
				fmt.Fprintf(stderr, "turnback: stopped the watch daemon of %s (pid %d, %s)\n", termout.QuotePath(o.Store), d.PID, by)
			} else {
				fmt.Fprintf(stderr, "turnback: the watch daemon of %s (pid %d) still runs: its store is kept\n", termout.QuotePath(o.Store), d.PID)
			}
		}
	}
	return pids
}

// SameDir reports whether a and b name the same directory (resolving
// symbolic links).
func SameDir(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
