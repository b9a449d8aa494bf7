package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
	"github.com/turnback/turnback/watch/daemon"
)

// Finding every watch daemon of this user, without a registry that
// could go stale: the processes themselves (/proc on Linux: a turnback
// executable running "watch" as a daemon, its arguments, directory,
// environment, open database files, start time and memory), each asked
// over its socket who it is when it answers; and the sockets of the
// per-user directory (where a daemon listens when its store's path is
// too long or open to others), which is all there is without /proc.

// listedDaemon is one daemon as watch --list reports it.
type listedDaemon struct {
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

// daemonArgs are the flags of a daemon's command line that matter here.
type daemonArgs struct {
	dir, store string
	daemon     bool // "watch" serving, not a client (--stop, --list...)
}

func parseDaemonArgs(args []string) daemonArgs {
	var a daemonArgs
	fs := pflag.NewFlagSet("turnback", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.StringVarP(&a.dir, "dir", "C", "", "")
	fs.StringVar(&a.store, "store", "", "")
	fs.String("session", "", "")
	fs.Bool("json", false, "")
	fs.Bool("force", false, "")
	var client [5]bool
	for i, name := range []string{"detach", "stop", "status", "list", "stop-all"} {
		fs.BoolVar(&client[i], name, false, "")
	}
	fs.Duration("idle-timeout", 0, "")
	fs.Int("queue-size", 0, "")
	fs.Bool("auto", false, "")
	fs.String("under", "", "")
	fs.BoolP("help", "h", false, "")
	if fs.Parse(args) != nil || fs.NArg() != 1 || fs.Arg(0) != "watch" {
		return daemonArgs{}
	}
	a.daemon = client == [5]bool{}
	if h, _ := fs.GetBool("help"); h {
		a.daemon = false
	}
	return a
}

func isDaemonArgs(args []string) bool { return parseDaemonArgs(args).daemon }

// findDaemons lists this user's watch daemons, oldest first.
func findDaemons() ([]listedDaemon, error) {
	procs, err := daemon.ListProcs(isDaemonArgs)
	if err != nil {
		return nil, fmt.Errorf("turnback: watch: list processes: %w", err)
	}
	var out []listedDaemon
	seen := map[int]bool{}
	for _, p := range procs {
		d := listedDaemon{PID: p.PID, Since: p.Since.UTC(), RSSBytes: p.RSSBytes, ticks: p.Ticks, Problems: []string{}}
		a := parseDaemonArgs(p.Args)
		d.WorkTree = a.dir
		if d.WorkTree == "" {
			d.WorkTree = p.Cwd
		} else if !filepath.IsAbs(d.WorkTree) {
			d.WorkTree = filepath.Join(p.Cwd, d.WorkTree)
		}
		d.Store = p.Store
		if d.Store == "" {
			if d.Store = a.store; d.Store == "" {
				d.Store = p.Env["TURNBACK_STORE"]
			}
			if d.Store != "" && !filepath.IsAbs(d.Store) {
				d.Store = filepath.Join(p.Cwd, d.Store)
			}
		}
		if p.StoreGone {
			d.Problems = append(d.Problems, "store gone")
		}
		out = append(out, d)
		seen[p.PID] = true
	}
	// Asked all at once: one that does not answer costs its second
	// once, not once per daemon after it.
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i := range out {
		d := &out[i]
		if d.Store == "" || hasString(d.Problems, "store gone") {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if info, ok := daemon.PingWithin(d.Store, time.Second); ok && info.PID == d.PID {
				d.fill(info)
			}
		}()
	}
	wg.Wait()
	// Daemons listening in the per-user directory that /proc did not
	// show, and without /proc, those of the stores in the default
	// location too.
	var socks []string
	sockDir := daemon.SocketDir()
	if daemon.CheckSocketDir(sockDir) == nil {
		ents, _ := os.ReadDir(sockDir)
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".sock") {
				socks = append(socks, filepath.Join(sockDir, e.Name()))
			}
		}
	}
	if root, err := turnback.DefaultStoreRoot(); err == nil && !daemon.ProcsSupported {
		ents, _ := os.ReadDir(root)
		for _, e := range ents {
			if p := daemon.SocketPath(filepath.Join(root, e.Name())); e.IsDir() && filepath.Dir(p) != sockDir {
				socks = append(socks, p)
			}
		}
	}
	for _, sock := range socks {
		if _, err := os.Lstat(sock); err != nil {
			continue
		}
		if info, ok := daemon.PingSocket(sock, time.Second); ok && !seen[info.PID] {
			d := listedDaemon{PID: info.PID, Problems: []string{}}
			d.fill(info)
			out = append(out, d)
			seen[info.PID] = true
		}
	}
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
func (d *listedDaemon) fill(info *daemon.Info) {
	d.Answering = true
	// The daemon's JSON answer cannot carry a path that is not valid
	// UTF-8; /proc gave the exact one.
	if d.WorkTree == "" || utf8.ValidString(d.WorkTree) {
		d.WorkTree = info.WorkTree
	}
	if d.Store == "" || utf8.ValidString(d.Store) {
		d.Store = info.Store
	}
	d.Socket = info.Socket
	d.Since = info.Since.UTC()
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

// under keeps the daemons whose folder or store is dir or below it.
func under(list []listedDaemon, dir string) ([]listedDaemon, error) {
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
	var out []listedDaemon
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

// listDaemons is watch --list.
func (g *globals) listDaemons(dir string) error {
	list, err := g.findDaemonsUnder(dir)
	if err != nil {
		return err
	}
	if g.json {
		termout.WriteJSON(g.stdout, map[string]any{"daemons": termout.NonNil(list)})
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintln(g.stdout, "no watch daemons")
		return nil
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PID\tSINCE\tIDLE\tMEMORY\tFOLDER\tSTORE\tNOTE")
	for _, d := range list {
		idle := "-"
		if d.IdleSeconds != nil {
			idle = (time.Duration(*d.IdleSeconds) * time.Second).String()
		}
		mem := "-"
		if d.RSSBytes > 0 {
			mem = termout.HumanBytes(d.RSSBytes)
		}
		note := strings.Join(d.Problems, ", ")
		if note == "" {
			note = "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", d.PID, d.Since.In(g.location()).Format("2006-01-02 15:04:05"),
			idle, mem, termout.QuotePath(d.WorkTree), termout.QuotePath(d.Store), note)
	}
	return tw.Flush()
}

func (g *globals) findDaemonsUnder(dir string) ([]listedDaemon, error) {
	list, err := findDaemons()
	if err != nil {
		return nil, err
	}
	return under(list, dir)
}

// stoppedDaemon is one daemon watch --stop-all dealt with.
type stoppedDaemon struct {
	PID      int    `json:"pid"`
	WorkTree string `json:"work_tree"`
	Store    string `json:"store"`
	// By: "socket" (asked, it released the store), "SIGTERM", or
	// "" for one still running (in survivors).
	By            string `json:"by,omitempty"`
	WorkTreeBytes string `json:"work_tree_bytes,omitempty"`
	StoreBytes    string `json:"store_bytes,omitempty"`
}

// stopAll is watch --stop-all.
func (g *globals) stopAll(dir string) error {
	list, err := g.findDaemonsUnder(dir)
	if err != nil {
		return err
	}
	var stopped, survivors []stoppedDaemon
	for _, d := range list {
		s := stoppedDaemon{PID: d.PID, WorkTree: d.WorkTree, Store: d.Store, WorkTreeBytes: d.WorkTreeBytes, StoreBytes: d.StoreBytes}
		if s.By = stopListed(d); s.By != "" {
			stopped = append(stopped, s)
		} else {
			survivors = append(survivors, s)
		}
	}
	if g.json {
		termout.WriteJSON(g.stdout, map[string]any{"stopped": termout.NonNil(stopped), "survivors": termout.NonNil(survivors)})
	} else {
		if len(list) == 0 {
			fmt.Fprintln(g.stdout, "no watch daemons")
		}
		for _, s := range stopped {
			fmt.Fprintf(g.stdout, "stopped pid %d (%s) of %s\n", s.PID, s.By, termout.QuotePath(s.WorkTree))
		}
	}
	for _, s := range survivors {
		fmt.Fprintf(g.stderr, "turnback: watch --stop-all: pid %d of %s still runs after SIGTERM (kill -KILL %d ends it)\n", s.PID, termout.QuotePath(s.WorkTree), s.PID)
	}
	if len(survivors) > 0 {
		return codedError{code: exitError, err: fmt.Errorf("turnback: watch --stop-all: %d daemons still run", len(survivors))}
	}
	return nil
}

// stopGraceAll bounds each step of stopping one daemon.
const stopGraceAll = 3 * time.Second

// stopListed stops one daemon: over its socket if it answers, else (or
// if it is still there after) by SIGTERM. It returns how, or "" if the
// process survived.
func stopListed(d listedDaemon) string {
	if d.Answering && d.Store != "" {
		if conn, ok := daemon.Dial(d.Store); ok {
			_ = conn.SetDeadline(time.Now().Add(stopGraceAll))
			_, _ = daemon.AskStop(conn)
			conn.Close()
			if waitProcGone(d.PID, d.ticks, stopGraceAll) {
				return "socket"
			}
		}
	}
	if d.PID <= 0 || d.PID == os.Getpid() {
		return ""
	}
	_ = daemon.SignalProc(d.PID, d.ticks, syscall.SIGTERM)
	if waitProcGone(d.PID, d.ticks, stopGraceAll) {
		return "SIGTERM"
	}
	return ""
}

func waitProcGone(pid int, ticks uint64, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for daemon.ProcAlive(pid, ticks) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// daemonsOfStore returns the daemons serving store (for info and gc).
func daemonsOfStore(list []listedDaemon, store string) []listedDaemon {
	var out []listedDaemon
	for _, d := range list {
		if d.Store != "" && (d.Store == store || sameDir(d.Store, store)) {
			out = append(out, d)
		}
	}
	return out
}

// orphanDoc is a store gc --stores reports, with the daemon that served
// it (stopped before the store is removed).
type orphanDoc struct {
	turnback.OrphanStore
	DaemonPID int `json:"daemon_pid,omitempty"`
}

// orphanDaemons finds the daemons of the stores gc --stores would
// remove; with stop, it stops them (saying so on stderr), so that the
// stores are free to go. A daemon that does not stop keeps its store.
func (g *globals) orphanDaemons(ctx context.Context, stop bool) map[string]int {
	pre, err := turnback.OrphanStores(ctx, false)
	if err != nil || len(pre) == 0 {
		return nil
	}
	all, err := findDaemons()
	if err != nil {
		return nil
	}
	pids := map[string]int{}
	for _, o := range pre {
		for _, d := range daemonsOfStore(all, o.Store) {
			pids[o.Store] = d.PID
			if !stop {
				continue
			}
			if by := stopListed(d); by != "" {
				fmt.Fprintf(g.stderr, "turnback: stopped the watch daemon of %s (pid %d, %s)\n", termout.QuotePath(o.Store), d.PID, by)
			} else {
				fmt.Fprintf(g.stderr, "turnback: the watch daemon of %s (pid %d) still runs: its store is kept\n", termout.QuotePath(o.Store), d.PID)
			}
		}
	}
	return pids
}
