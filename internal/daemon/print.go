package daemon

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cmd/turnback/termout"
	wd "github.com/turnback/turnback/watch/daemon"
)

// List is watch --list: it prints the daemons whose folder or store is
// in dir ("": all) as one JSON document, or a table with times in loc.
func List(w io.Writer, dir string, asJSON bool, loc *time.Location) error {
	list, err := FindUnder(dir)
	if err != nil {
		return err
	}
	if asJSON {
		termout.WriteJSON(w, map[string]any{"daemons": termout.NonNil(list)})
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintln(w, "no watch daemons")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
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
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", d.PID, d.Since.In(loc).Format("2006-01-02 15:04:05"),
			idle, mem, termout.QuotePath(d.WorkTree), termout.QuotePath(d.Store), note)
	}
	return tw.Flush()
}

// PrintOrphans prints what gc --stores found (and, with yes,
// removed): the stores whose folder is gone, with the daemons that
// served them (pids, by store).
func PrintOrphans(w io.Writer, list []turnback.OrphanStore, pids map[string]int, yes, asJSON bool) {
	if asJSON {
		docs := []OrphanDoc{}
		for _, o := range list {
			docs = append(docs, OrphanDoc{OrphanStore: o, DaemonPID: pids[o.Store]})
		}
		termout.WriteJSON(w, map[string]any{"stores": docs, "deleted": yes})
		return
	}
	if len(list) == 0 {
		fmt.Fprintln(w, "no orphaned stores")
		return
	}
	var total int64
	for _, o := range list {
		total += o.Bytes
		watched := ""
		if pid, ok := pids[o.Store]; ok && !yes {
			watched = fmt.Sprintf("; watch daemon pid %d", pid)
		}
		fmt.Fprintf(w, "%s  %s  (folder %s is gone%s)\n", termout.HumanBytes(o.Bytes), termout.QuotePath(o.Store), termout.QuotePath(o.WorkTree), watched)
	}
	if yes {
		fmt.Fprintf(w, "deleted %d stores, %s\n", len(list), termout.HumanBytes(total))
	} else {
		fmt.Fprintf(w, "%d stores, %s: run with --yes to delete them\n", len(list), termout.HumanBytes(total))
	}
}

// PrintInfo prints the daemon that serves a folder, as watch --status
// and --detach do: what it does ("watching", "already watching") or, in
// JSON, its Info.
func PrintInfo(w io.Writer, info *wd.Info, what string, asJSON bool) {
	if asJSON {
		termout.WriteJSON(w, info)
		return
	}
	fmt.Fprintf(w, "%s %s (pid %d)\n", what, termout.QuotePath(info.WorkTree), info.PID)
}

// PrintNone says that no daemon serves workTree.
func PrintNone(w io.Writer, workTree string, asJSON bool) {
	if asJSON {
		termout.WriteJSON(w, map[string]any{"running": false, "work_tree": workTree})
	} else {
		fmt.Fprintf(w, "no watch daemon for %s\n", termout.QuotePath(workTree))
	}
}

// PrintStopped says that the daemon info described has stopped.
func PrintStopped(w io.Writer, info *wd.Info, asJSON bool) {
	if asJSON {
		termout.WriteJSON(w, map[string]any{"running": false, "stopped": info.PID, "work_tree": info.WorkTree})
	} else {
		fmt.Fprintf(w, "stopped the watch daemon of %s (pid %d)\n", termout.QuotePath(info.WorkTree), info.PID)
	}
}

// StopPrint is watch --stop: it stops the daemon of storeDir (see StopOne)
// and says so on w, or that none ran.
func StopPrint(w io.Writer, workTree, storeDir string, asJSON bool) error {
	info, err := StopOne(storeDir)
	switch {
	case err != nil:
		return err
	case info == nil:
		d, ok := silent(storeDir)
		if !ok {
			PrintNone(w, workTree, asJSON)
			return nil
		}
		// A daemon stopped with SIGSTOP or Ctrl-Z, which holds the
		// store but answers nothing: SIGTERM, then SIGCONT.
		if Stop(d) == "" {
			return fmt.Errorf("turnback: watch --stop: the daemon of %s (pid %d) does not answer and still runs after SIGTERM (kill -KILL %d ends it)",
				termout.QuotePath(workTree), d.PID, d.PID)
		}
		PrintStopped(w, &wd.Info{PID: d.PID, WorkTree: workTree}, asJSON)
	default:
		PrintStopped(w, info, asJSON)
	}
	return nil
}

// DetachPrint is watch --detach: it starts a daemon (see Detach) and
// says on w which one serves the folder.
func DetachPrint(ctx context.Context, w io.Writer, workTree, storeDir string, force bool, idle time.Duration, queue int, asJSON bool) error {
	info, already, err := Detach(ctx, workTree, storeDir, force, idle, queue)
	if err != nil {
		return err
	}
	what := "watching"
	if already {
		what = "already watching"
	}
	PrintInfo(w, info, what, asJSON)
	return nil
}

// silent returns the daemon the registry notes for storeDir that is
// stopped (SIGSTOP, Ctrl-Z), so answers nothing while it holds the
// store, if any (Linux). One that is stopping is not silent.
func silent(storeDir string) (Listed, bool) {
	notes, err := wd.Notes()
	if err != nil {
		return Listed{}, false
	}
	for _, n := range notes {
		store := string(n.Store)
		if n.PID <= 0 || n.Ticks == 0 || store == "" || (store != storeDir && !SameDir(store, storeDir)) {
			continue
		}
		if wd.ProcStopped(n.PID, n.Ticks) {
			return Listed{PID: n.PID, WorkTree: string(n.WorkTree), Store: store, Socket: string(n.Socket), ticks: n.Ticks}, true
		}
	}
	return Listed{}, false
}

// PrintStatus is watch --status: the daemon of storeDir that answers,
// one that runs without answering, or none.
func PrintStatus(w io.Writer, workTree, storeDir string, asJSON bool) {
	if info, ok := wd.Ping(storeDir); ok {
		PrintInfo(w, info, "watching", asJSON)
		return
	}
	d, ok := silent(storeDir)
	if !ok {
		PrintNone(w, workTree, asJSON)
		return
	}
	if asJSON {
		termout.WriteJSON(w, map[string]any{"running": true, "answering": false, "pid": d.PID, "work_tree": workTree})
		return
	}
	fmt.Fprintf(w, "watch daemon of %s (pid %d) is stopped and does not answer (kill -CONT %d resumes it); it holds the store: turnback watch --stop ends it\n",
		termout.QuotePath(workTree), d.PID, d.PID)
}
