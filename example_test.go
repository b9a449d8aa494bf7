package turnback_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/turnback/turnback"
)

// exProject makes a temporary work tree holding files (path -> content)
// and a temporary store directory, and returns a function that removes
// both. Real callers protect an existing folder and let the store default
// to DefaultStoreDir.
func exProject(files map[string]string) (workTree, store string, cleanup func()) {
	workTree, err := os.MkdirTemp("", "turnback-example-project-")
	if err != nil {
		log.Fatal(err)
	}
	store, err = os.MkdirTemp("", "turnback-example-store-")
	if err != nil {
		log.Fatal(err)
	}
	for name, data := range files {
		exWrite(workTree, name, data)
	}
	return workTree, store, func() {
		os.RemoveAll(workTree)
		os.RemoveAll(store)
	}
}

// exWrite writes a file of the work tree, as an agent or a user would.
func exWrite(workTree, name, data string) {
	p := filepath.Join(workTree, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		log.Fatal(err)
	}
}

// exRead returns a file's content, or "(absent)".
func exRead(workTree, name string) string {
	data, err := os.ReadFile(filepath.Join(workTree, filepath.FromSlash(name)))
	if errors.Is(err, os.ErrNotExist) {
		return "(absent)"
	}
	if err != nil {
		log.Fatal(err)
	}
	return strings.TrimSuffix(string(data), "\n")
}

// exOpen opens the work tree's store for session.
func exOpen(workTree, store, session string) *turnback.Repo {
	repo, err := turnback.Open(context.Background(), workTree, turnback.Options{Store: store, Session: session})
	if err != nil {
		log.Fatal(err)
	}
	return repo
}

func ExampleOpen() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"main.go": "package main\n"})
	defer cleanup()

	// Open creates the store on first use. Options{} would put it in
	// DefaultStoreDir(workTree) and use the session "default".
	repo, err := turnback.Open(ctx, workTree, turnback.Options{Store: store, Session: "agent-1"})
	if err != nil {
		log.Fatal(err)
	}
	defer repo.Close()
	fmt.Println("session:", repo.Session())
	fmt.Println("store as given:", repo.StoreDir() == store)

	// One process at a time holds a store: another Open waits up to
	// LockWait (negative: not at all), then fails with ErrBusy.
	_, err = turnback.Open(ctx, workTree, turnback.Options{Store: store, LockWait: -1})
	fmt.Println("busy:", errors.Is(err, turnback.ErrBusy))

	// The home directory and / are refused unless Options.Force is set.
	home, _ := os.UserHomeDir()
	_, err = turnback.Open(ctx, home, turnback.Options{Store: store})
	fmt.Println("home refused:", errors.Is(err, turnback.ErrScope))
	// Output:
	// session: agent-1
	// store as given: true
	// busy: true
	// home refused: true
}

func ExampleRepo_Snap() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"hello.txt": "hello\n", "src/app.js": "app()\n"})
	defer cleanup()
	repo := exOpen(workTree, store, "agent-1")
	defer repo.Close()

	// Before the agent's turn: capture the before-state.
	res, err := repo.Snap(ctx, "add a greeting\nand more details the log does not show")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("turn %d: %d files, %d bytes\n", res.Turn, res.Files, res.Bytes)

	// The agent changes nothing; the next Snap closes turn 1 at the same
	// state, so it is dropped, and opens turn 2. An unchanged tree has
	// the same snapshot id.
	again, err := repo.Snap(ctx, "a question, no edits")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("turn %d, same snapshot: %v, closed turn %d, dropped: %v\n",
		again.Turn, again.Snapshot == res.Snapshot, again.Closed.N, again.Dropped)
	// Output:
	// turn 1: 2 files, 12 bytes
	// turn 2, same snapshot: true, closed turn 1, dropped: true
}

func ExampleRepo_End() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"a.txt": "a\n", "old.txt": "old\n"})
	defer cleanup()
	repo := exOpen(workTree, store, "agent-1")
	defer repo.Close()

	if _, err := repo.Snap(ctx, "rework the files"); err != nil {
		log.Fatal(err)
	}
	// The agent's turn.
	exWrite(workTree, "a.txt", "A\n")
	exWrite(workTree, "new.txt", "new\n")
	os.Remove(filepath.Join(workTree, "old.txt"))

	res, err := repo.End(ctx)
	if err != nil {
		log.Fatal(err)
	}
	t := res.Closed
	fmt.Printf("turn %d closed by %s: +%d ~%d -%d\n", res.Turn, t.ClosedBy, t.Added, t.Modified, t.Deleted)

	// End with no open turn records nothing.
	res, err = repo.End(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("no open turn:", res.NoOpenTurn)
	// Output:
	// turn 1 closed by end: +1 ~1 -1
	// no open turn: true
}

func ExampleRepo_Undo() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"a.txt": "a\n", "notes.txt": "mine\n"})
	defer cleanup()
	repo := exOpen(workTree, store, "agent-1")
	defer repo.Close()

	repo.Snap(ctx, "edit a, add b")
	exWrite(workTree, "a.txt", "agent's a\n")
	exWrite(workTree, "b.txt", "agent's b\n")
	repo.End(ctx)
	// The user edits a file the turn did not touch: undo leaves it alone.
	exWrite(workTree, "notes.txt", "mine, edited\n")

	res, err := repo.Undo(ctx, 1, turnback.UndoOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("undid", res.Turns, "turn: restored", res.Restored, "deleted", res.Deleted)
	fmt.Println("a.txt:", exRead(workTree, "a.txt"))
	fmt.Println("b.txt:", exRead(workTree, "b.txt"))
	fmt.Println("notes.txt:", exRead(workTree, "notes.txt"))

	// A conflict: the user edits what the next turn left, then asks to
	// undo that turn. Nothing changes; the error lists the paths.
	repo.Snap(ctx, "edit a again")
	exWrite(workTree, "a.txt", "agent's second a\n")
	repo.End(ctx)
	exWrite(workTree, "a.txt", "the user's a\n")

	_, err = repo.Undo(ctx, 1, turnback.UndoOptions{})
	fmt.Println("conflict:", errors.Is(err, turnback.ErrConflict))
	var ce *turnback.ConflictError
	if errors.As(err, &ce) {
		for _, c := range ce.Result.Conflicts {
			fmt.Printf("  %s: %s\n", c.Path, c.Reason)
		}
	}
	fmt.Println("a.txt:", exRead(workTree, "a.txt"))

	// force proceeds; the user's edit stays in the checkpoint (see Redo
	// and Restore).
	res, err = repo.Undo(ctx, 1, turnback.UndoOptions{Force: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("forced: restored", res.Restored, "a.txt:", exRead(workTree, "a.txt"))
	// Output:
	// undid 1 turn: restored [a.txt] deleted [b.txt]
	// a.txt: a
	// b.txt: (absent)
	// notes.txt: mine, edited
	// conflict: true
	//   a.txt: modified since
	// a.txt: the user's a
	// forced: restored [a.txt] a.txt: a
}

// Undo with UndoOptions: a dry run first, a partial undo (Paths), and a
// merge that keeps the user's edits (Merge).
func ExampleRepo_Undo_options() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"a.txt": "a\n", "m.txt": "one\ntwo\nthree\nfour\n"})
	defer cleanup()
	repo := exOpen(workTree, store, "agent-1")
	defer repo.Close()

	repo.Snap(ctx, "edit a and m, add c")
	exWrite(workTree, "a.txt", "agent's a\n")
	exWrite(workTree, "c.txt", "agent's c\n")
	exWrite(workTree, "m.txt", "one\ntwo\nthree\nFOUR (agent)\n")
	repo.End(ctx)
	exWrite(workTree, "m.txt", "ONE (user)\ntwo\nthree\nFOUR (agent)\n") // the user's edit since

	// What a partial undo of a.txt would do; nothing changes.
	res, err := repo.Undo(ctx, 1, turnback.UndoOptions{Paths: []string{"a.txt"}, DryRun: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("would restore", res.DryRun.Restored, "a.txt:", exRead(workTree, "a.txt"))

	// Only a.txt; the turn stays on the undo stack with its other changes.
	if _, err := repo.Undo(ctx, 1, turnback.UndoOptions{Paths: []string{"a.txt"}}); err != nil {
		log.Fatal(err)
	}
	turns, _, _ := repo.Turns(ctx)
	fmt.Println("a.txt:", exRead(workTree, "a.txt"), "turns left:", len(turns))

	// The rest, merging m.txt: the agent's line goes, the user's stays.
	res, err = repo.Undo(ctx, 1, turnback.UndoOptions{Merge: turnback.MergeClean})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("merged", res.Merged, "deleted", res.Deleted)
	fmt.Println("m.txt:", exRead(workTree, "m.txt"))

	// Redo brings back the whole undo, then the partial one, exactly.
	repo.Redo(ctx, 2, turnback.RedoOptions{})
	fmt.Println("after redo: a.txt:", exRead(workTree, "a.txt"), "m.txt:", exRead(workTree, "m.txt"))
	// Output:
	// would restore [a.txt] a.txt: agent's a
	// a.txt: a turns left: 1
	// merged [m.txt] deleted [c.txt]
	// m.txt: ONE (user)
	// two
	// three
	// four
	// after redo: a.txt: agent's a m.txt: ONE (user)
	// two
	// three
	// FOUR (agent)
}

func ExampleRepo_Redo() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"a.txt": "a\n"})
	defer cleanup()
	repo := exOpen(workTree, store, "agent-1")
	defer repo.Close()

	repo.Snap(ctx, "first")
	exWrite(workTree, "a.txt", "first\n")
	repo.End(ctx)
	repo.Snap(ctx, "second")
	exWrite(workTree, "b.txt", "second\n")
	repo.End(ctx)

	if _, err := repo.Undo(ctx, 2, turnback.UndoOptions{}); err != nil {
		log.Fatal(err)
	}
	fmt.Println("after undo 2:", exRead(workTree, "a.txt"), exRead(workTree, "b.txt"))

	// Redo re-applies the undone turns one at a time, oldest first.
	res, err := repo.Redo(ctx, 1, turnback.RedoOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("redid", res.Turns, "restored", res.Restored, "created", res.Created)
	fmt.Println("after redo 1:", exRead(workTree, "a.txt"), exRead(workTree, "b.txt"))
	res, err = repo.Redo(ctx, 5, turnback.RedoOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("redid", res.Turns, "restored", res.Restored, "created", res.Created)
	fmt.Println("after redo 5:", exRead(workTree, "a.txt"), exRead(workTree, "b.txt"))

	res, err = repo.Redo(ctx, 1, turnback.RedoOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("nothing to redo:", res.Nothing)
	// Output:
	// after undo 2: a (absent)
	// redid 1 restored [a.txt] created []
	// after redo 1: first (absent)
	// redid 1 restored [] created [b.txt]
	// after redo 5: first second
	// nothing to redo: true
}

func ExampleRepo_Restore() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"a.txt": "v1\n"})
	defer cleanup()
	repo := exOpen(workTree, store, "agent-1")
	defer repo.Close()

	first, err := repo.Snap(ctx, "v2")
	if err != nil {
		log.Fatal(err)
	}
	exWrite(workTree, "a.txt", "v2\n")
	exWrite(workTree, "b.txt", "new\n")
	repo.End(ctx)

	// Make the tree exactly the first snapshot (any unique prefix of the
	// id works, as the CLI prints it).
	res, err := repo.Restore(ctx, first.Snapshot.Short(), turnback.RestoreOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("restored", res.Restored, "deleted", res.Deleted)
	fmt.Println("a.txt:", exRead(workTree, "a.txt"), "b.txt:", exRead(workTree, "b.txt"))

	// The checkpoint is the state Restore replaced: restoring it goes back.
	if _, err := repo.Restore(ctx, res.Checkpoint.String(), turnback.RestoreOptions{}); err != nil {
		log.Fatal(err)
	}
	fmt.Println("a.txt:", exRead(workTree, "a.txt"), "b.txt:", exRead(workTree, "b.txt"))

	_, err = repo.Restore(ctx, "0123abcd", turnback.RestoreOptions{})
	fmt.Println("unknown id:", errors.Is(err, turnback.ErrUnknownID))
	// Output:
	// restored [a.txt] deleted [b.txt]
	// a.txt: v1 b.txt: (absent)
	// a.txt: v2 b.txt: new
	// unknown id: true
}

func ExampleRepo_Status() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	defer cleanup()
	repo := exOpen(workTree, store, "agent-1")
	defer repo.Close()

	repo.Snap(ctx, "work")
	exWrite(workTree, "a.txt", "changed\n")
	exWrite(workTree, "src/new.go", "package src\n")
	os.Remove(filepath.Join(workTree, "b.txt"))

	st, err := repo.Status(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range st.Changes {
		fmt.Println(c.What, c.Path)
	}
	// Output:
	// modified a.txt
	// deleted b.txt
	// added src
	// added src/new.go
}

func ExampleRepo_Diff() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"greeting.txt": "hello\n"})
	defer cleanup()
	repo := exOpen(workTree, store, "agent-1")
	defer repo.Close()

	repo.Snap(ctx, "friendlier")
	exWrite(workTree, "greeting.txt", "hello, world\n")

	// "" and "": the session's last snapshot against the work tree now.
	_, _, diffs, err := repo.Diff(ctx, "", "")
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range diffs {
		fmt.Printf("%s %s: %q -> %q\n", d.What, d.Path, d.OldData, d.NewData)
	}
	// Output:
	// modified greeting.txt: "hello\n" -> "hello, world\n"
}

func ExampleRepo_Turns() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"a.txt": "a\n"})
	defer cleanup()
	repo := exOpen(workTree, store, "agent-1")
	defer repo.Close()

	repo.Snap(ctx, "add b")
	exWrite(workTree, "b.txt", "b\n")
	repo.End(ctx)
	repo.Snap(ctx, "change a")
	exWrite(workTree, "a.txt", "A\n")
	repo.End(ctx)
	repo.Snap(ctx, "add c") // still open
	exWrite(workTree, "c.txt", "c\n")

	show := func() {
		turns, redo, err := repo.Turns(ctx)
		if err != nil {
			log.Fatal(err)
		}
		for _, t := range redo {
			fmt.Printf("  %d undone  %s\n", t.N, t.Message)
		}
		for _, t := range turns {
			if t.Open() {
				fmt.Printf("  %d (open)  %s\n", t.N, t.Message)
				continue
			}
			fmt.Printf("  %d +%d ~%d -%d  %s\n", t.N, t.Added, t.Modified, t.Deleted, t.Message)
		}
	}
	fmt.Println("newest first:")
	show()
	repo.Undo(ctx, 1, turnback.UndoOptions{}) // closes turn 3, then undoes it
	fmt.Println("after undo:")
	show()
	// Output:
	// newest first:
	//   3 (open)  add c
	//   2 +0 ~1 -0  change a
	//   1 +1 ~0 -0  add b
	// after undo:
	//   3 undone  add c
	//   2 +0 ~1 -0  change a
	//   1 +1 ~0 -0  add b
}

func ExampleRepo_Sessions() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"a.txt": "a\n"})
	defer cleanup()

	// An agent's hook records each conversation as a session named by
	// its id, and says which agent it is (Options.Agent).
	agent, err := turnback.Open(ctx, workTree, turnback.Options{Store: store,
		Session: "4f1c2a7e-8b3d-4c2e-9f1a-0123456789ab", Agent: "claude"})
	if err != nil {
		log.Fatal(err)
	}
	agent.Snap(ctx, "add b")
	exWrite(workTree, "b.txt", "b\n")
	agent.End(ctx)
	agent.Close()

	// Someone else opens the folder without knowing the id.
	repo := exOpen(workTree, store, "")
	defer repo.Close()
	list, err := repo.Sessions(ctx) // most recently active first
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range list {
		fmt.Printf("%s (%s): %d turn, last %q\n", s.Short, s.Agent, s.Turns, s.LastMessage)
	}
	// A unique prefix of a name finds the session.
	name, _ := repo.FindSession(ctx, "4f1c")
	fmt.Println("4f1c is", name)
	// With no name, the default session has no turns: the newest turn's.
	latest, _ := repo.LatestSession(ctx)
	fmt.Println("latest:", latest.Short)
	// Output:
	// 4f1c2a7e (claude): 1 turn, last "add b"
	// 4f1c is 4f1c2a7e-8b3d-4c2e-9f1a-0123456789ab
	// latest: 4f1c2a7e
}

func ExampleRepo_Show() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"README.md": "# hi\n", "src/main.go": "package main\n"})
	defer cleanup()
	repo := exOpen(workTree, store, "agent-1")
	defer repo.Close()

	snap, err := repo.Snap(ctx, "look around")
	if err != nil {
		log.Fatal(err)
	}
	info, err := repo.Show(ctx, snap.Snapshot.Short())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d files, %d bytes\n", info.Files, info.Bytes)
	for _, e := range info.Entries {
		fmt.Printf("  %-12s %v %d\n", e.Path, e.Entry.Kind, e.Entry.Size)
	}
	for _, t := range info.Turns {
		fmt.Printf("before-state of turn %d (%s)\n", t.N, t.Message)
	}
	// Output:
	// 2 files, 18 bytes
	//   README.md    file 5
	//   src          dir 0
	//   src/main.go  file 13
	// before-state of turn 1 (look around)
}

func ExampleRepo_Verify() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	defer cleanup()
	repo := exOpen(workTree, store, "agent-1")
	defer repo.Close()

	repo.Snap(ctx, "edit")
	exWrite(workTree, "a.txt", "A\n")
	repo.End(ctx)

	// Verify re-hashes every content every recorded snapshot reaches:
	// here a.txt twice (before and after) and b.txt once.
	res, err := repo.Verify(ctx)
	if err != nil { // errors.Is(err, turnback.ErrVerify) lists res.Problems
		log.Fatal(err)
	}
	fmt.Printf("%d snapshots, %d contents, %d problems\n", res.Snapshots, res.Contents, len(res.Problems))
	// Output:
	// 2 snapshots, 3 contents, 0 problems
}

func ExampleRepo_GC() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"a.txt": "0\n"})
	defer cleanup()
	repo := exOpen(workTree, store, "agent-1")
	defer repo.Close()

	for i := 1; i <= 3; i++ {
		repo.Snap(ctx, fmt.Sprintf("turn %d", i))
		exWrite(workTree, "a.txt", fmt.Sprintf("%d\n", i))
		repo.End(ctx)
	}
	// Keep only the newest turn of each session; drop what nothing needs.
	res, err := repo.GC(ctx, turnback.GCOptions{Keep: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("turns forgotten:", res.TurnsForgotten)
	turns, _, _ := repo.Turns(ctx)
	for _, t := range turns {
		fmt.Println("kept:", t.Message)
	}
	// The kept turn can still be undone.
	if _, err := repo.Undo(ctx, 1, turnback.UndoOptions{}); err != nil {
		log.Fatal(err)
	}
	fmt.Println("a.txt:", exRead(workTree, "a.txt"))
	// Output:
	// turns forgotten: 2
	// kept: turn 3
	// a.txt: 2
}

func ExampleRepo_Info() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"a.txt": "hello\n", "b.txt": "world\n"})
	defer cleanup()
	repo := exOpen(workTree, store, "agent-1")
	defer repo.Close()

	repo.Snap(ctx, "edit a")
	exWrite(workTree, "a.txt", "hello, you\n")
	repo.End(ctx)

	in, err := repo.Info(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d session, %d turn, %d snapshots\n", in.Sessions, in.Turns, in.Snapshots)
	// Two snapshots of 12 and 17 bytes share b.txt's content.
	fmt.Printf("unique %d bytes, as copies %d bytes\n", in.UniqueBytes, in.LogicalBytes)
	fmt.Printf("limits: files over %d MiB, new dirs of %d files; keep %d turns, %d days\n",
		in.SizeLimit>>20, in.LargeDirFiles, in.KeepTurns, in.KeepAgeDays)
	fmt.Println("store on disk:", in.DiskBytes > 0)
	// Output:
	// 1 session, 1 turn, 2 snapshots
	// unique 23 bytes, as copies 29 bytes
	// limits: files over 10 MiB, new dirs of 200 files; keep 100 turns, 30 days
	// store on disk: true
}

func ExampleLocate() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"src/pkg/lib.go": "package pkg\n"})
	defer cleanup()
	repo := exOpen(workTree, store, "default")
	repo.Snap(ctx, "first")
	root := repo.WorkTree()
	repo.Close()

	// From a subdirectory, Locate finds the work tree whose store exists,
	// as git finds .git. With store "" it looks for each ancestor's
	// default store (DefaultStoreDir); here the store is explicit.
	found, foundStore, err := turnback.Locate(filepath.Join(workTree, "src", "pkg"), store)
	if err != nil {
		log.Fatal(err)
	}
	rel, _ := filepath.Rel(root, found)
	fmt.Println("work tree:", rel)
	fmt.Println("store:", foundStore == store)
	// Output:
	// work tree: .
	// store: true
}

func ExampleDefaultStoreDir() {
	// With TURNBACK_STORE unset, stores live under
	// ${XDG_DATA_HOME:-~/.local/share}/turnback, one per work tree, named
	// after the folder and a hash of its absolute path.
	dir, err := turnback.DefaultStoreDir("/home/alice/src/my app")
	if err != nil {
		log.Fatal(err)
	}
	name := filepath.Base(dir)
	fmt.Println(filepath.Base(filepath.Dir(dir)))
	fmt.Println(name[:strings.LastIndexByte(name, '-')])
	fmt.Println(len(name) - strings.LastIndexByte(name, '-') - 1)

	other, _ := turnback.DefaultStoreDir("/home/bob/src/my app")
	fmt.Println(other != dir)
	// Output:
	// turnback
	// my_app
	// 16
	// true
}
