//go:build unix

package turnback_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/turnback/turnback"
	daemons "github.com/turnback/turnback/internal/daemon"
	"github.com/turnback/turnback/watch/daemon"
)

// exServe starts a daemon serving workTree, as "turnback serve" (or a
// watch daemon) does, in another process; stop stops it.
func exServe(workTree, store string) (stop func()) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envDaemonDir+"="+workTree, envDaemonStore+"="+store)
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	for {
		if info, ok := daemon.PingWithin(store, time.Second); ok && info.Ready {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}
}

func ExampleRepo_SnapWith() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"main.go": "package main\n"})
	defer cleanup()
	repo := exOpen(workTree, store, "chat-7")
	defer repo.Close()

	// An agent's server records which message each turn began at.
	for i, file := range []string{"a.go", "b.go"} {
		_, err := repo.SnapWith(ctx, turnback.SnapOptions{Message: "turn " + file,
			Meta: map[string]string{"message_index": fmt.Sprint(2 * i)}})
		if err != nil {
			log.Fatal(err)
		}
		exWrite(workTree, file, "package main\n")
		if _, err := repo.End(ctx); err != nil {
			log.Fatal(err)
		}
	}
	turns, _, err := repo.Turns(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range turns {
		fmt.Printf("turn %d began at message %s\n", t.N, t.Meta["message_index"])
	}

	// Metadata is bounded and checked; nothing is recorded otherwise.
	_, err = repo.SnapWith(ctx, turnback.SnapOptions{Meta: map[string]string{"not a key": "x"}})
	fmt.Println("invalid:", errors.Is(err, turnback.ErrInvalidMeta))
	// Output:
	// turn 2 began at message 2
	// turn 1 began at message 0
	// invalid: true
}

func ExampleRepo_Served() {
	ctx := context.Background()
	workTree, store, cleanup := exProject(map[string]string{"main.go": "package main\n"})
	defer cleanup()
	stop := exServe(workTree, store) // turnback serve, or a watch daemon
	defer stop()

	// The daemon holds the store; Open does not wait for it (LockWait
	// -1 would fail at once otherwise) but returns a Repo whose methods
	// run in the daemon.
	repo, err := turnback.Open(ctx, workTree, turnback.Options{Store: store, Session: "chat-7", LockWait: -1})
	if err != nil {
		log.Fatal(err)
	}
	defer repo.Close()
	fmt.Println("served by the daemon:", repo.Served())

	if _, err := repo.SnapWith(ctx, turnback.SnapOptions{Meta: map[string]string{"message_index": "4"}}); err != nil {
		log.Fatal(err)
	}
	exWrite(workTree, "main.go", "package main // by the agent\n")
	if _, err := repo.End(ctx); err != nil {
		log.Fatal(err)
	}
	// An edit outside the turn: the undo conflicts and changes nothing,
	// exactly as without a daemon.
	exWrite(workTree, "main.go", "package main // by the user\n")
	_, err = repo.Undo(ctx, 1, turnback.UndoOptions{})
	var ce *turnback.ConflictError
	if errors.As(err, &ce) {
		fmt.Println("conflict:", errors.Is(err, turnback.ErrConflict), ce.Result.Conflicts[0].Path)
	}
	res, err := repo.Undo(ctx, 1, turnback.UndoOptions{Force: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("undone:", res.Turns, res.Restored, exRead(workTree, "main.go"))
	// Output:
	// served by the daemon: true
	// conflict: true main.go
	// undone: 1 [main.go] package main
}

func Example_httpAPI() {
	workTree, store, cleanup := exProject(map[string]string{"main.go": "package main\n"})
	defer cleanup()
	repo := exOpen(workTree, store, "default")
	defer repo.Close()

	// The daemons serve this handler on their socket; a program can serve
	// its own Repo the same way.
	srv := httptest.NewServer(daemons.NewHandler(repo))
	defer srv.Close()
	post := func(path, body string) map[string]any {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			log.Fatal(err)
		}
		defer resp.Body.Close()
		var doc map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
			log.Fatal(err)
		}
		doc["status"] = resp.StatusCode
		return doc
	}
	post("/v1/sessions/chat-7/snap", `{"message":"add util","meta":{"message_index":"12"}}`)
	exWrite(workTree, "util.go", "package main\n")
	post("/v1/sessions/chat-7/end", ``)
	undo := post("/v1/sessions/chat-7/undo", `{"count":1}`)
	turn := undo["turns"].([]any)[0].(map[string]any)
	fmt.Println(undo["status"], undo["turns_undone"], undo["files_reverted"], turn["meta"])
	bad := post("/v1/sessions/chat-7/undo", `{"count":`)
	fmt.Println(bad["status"], bad["exit_code"], bad["kind"])
	// Output:
	// 200 1 [util.go] map[message_index:12]
	// 400 2 bad_request
}
