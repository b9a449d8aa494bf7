package remote

import (
	"context"
	"errors"
	"fmt"
	"github.com/turnback/turnback/cmd/turnback/remote/bgpush"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/cmd/turnback/termout"
	s3remote "github.com/turnback/turnback/internal/remote"
)

func (e *Env) pushCmd() *cobra.Command {
	var all bool
	var jobs, packSize int
	var logPath string
	c := &cobra.Command{
		Use:   "push [--session NAME | --all]",
		Short: "Upload the session's turns and what they reach that the remote lacks",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if all && e.Session() != "" {
				return e.Usage(errors.New("turnback: push: --all and --session exclude each other"))
			}
			if jobs < 1 || jobs > 64 {
				return e.Usage(fmt.Errorf("turnback: push: --jobs %d: want 1 to 64", jobs))
			}
			if packSize < 64<<10 || packSize > 256<<20 {
				return e.Usage(fmt.Errorf("turnback: push: --pack-size %d: want 65536 to 268435456 bytes", packSize))
			}
			if logPath != "" { // a background push (StartBackgroundPush)
				if err := e.probe(cmd); err != nil {
					bgpush.AppendLog(logPath, pushOutcome(e.Session(), nil, err))
					return err
				}
			}
			var res *s3remote.PushResult
			var staged *s3remote.StagedPush
			var stageDir string
			release := func() {}
			defer func() {
				if stageDir != "" {
					os.RemoveAll(stageDir)
				}
				release() // after the upload: an older head never lands last
			}()
			progress := e.ErrTTY && !e.json()
			err := e.WithRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) error {
				if logPath != "" {
					// One background push at a time, taken by the
					// process that asks for it (a watch daemon serving
					// the store takes none).
					r, err := serialize(logPath)
					if err != nil {
						return err
					}
					release = r
				}
				if repo.Served() {
					// The daemon holds the store throughout: it pushes
					// with this process's credentials, unstaged.
					var err error
					res, err = onStore(cmd.Context(), repo, "push", pushRequest{Env: creds(e.Getenv), All: all, Parallel: jobs, PackSize: packSize}, pushHere)
					return err
				}
				_, c, err := e.client(cmd, repo)
				if err != nil {
					return err
				}
				o := s3remote.PushOptions{All: all, Parallel: jobs, PackSize: packSize}
				if progress {
					o.Progress = func(p s3remote.PushProgress) {
						fmt.Fprintf(e.Stderr, "\rpushing: %d packs, %s sent ", p.Packs, termout.HumanBytes(p.BytesSent))
					}
				}
				// The packs are staged in the store's directory and the
				// store released before the upload, so a snap (an
				// agent's hook) need not wait for the network.
				if stageDir, err = newStageDir(repo.StoreDir()); err != nil {
					return err
				}
				staged, err = s3remote.StagePush(cmd.Context(), repo, c, o, stageDir)
				return err
			})
			if err == nil && staged != nil {
				res, err = staged.Upload(cmd.Context())
				if progress && res != nil && res.Packs > 0 {
					fmt.Fprintln(e.Stderr)
				}
			}
			if logPath != "" { // a background push (StartBackgroundPush)
				bgpush.AppendLog(logPath, pushOutcome(e.Session(), res, err))
			}
			if err != nil {
				return err
			}
			e.print(res, pushOutcome("", res, nil)+"\n")
			return nil
		},
	}
	c.Flags().StringVar(&logPath, "log", "", "")
	c.Flags().Lookup("log").Hidden = true
	c.Flags().BoolVar(&all, "all", false, "push every session of the store")
	c.Flags().IntVar(&jobs, "jobs", 4, "uploads at once")
	c.Flags().IntVar(&packSize, "pack-size", s3remote.DefaultPackSize, "bytes a pack holds on average (its boundaries depend on its content)")
	return c
}

// probeWait bounds a background push's first request (probe).
const probeWait = 15 * time.Second

// probe is a background push's first step: it reads the remote's address
// from the store, closes the store, and asks the server whether the
// bucket exists. An unreachable server or bad credentials then fail the
// push before it opens the store for the upload (which keeps writers
// waiting: the agent's next snap).
func (e *Env) probe(cmd *cobra.Command) error {
	var c *s3.Client
	err := e.WithRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) (err error) {
		_, c, err = e.client(cmd, repo)
		return err
	})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), probeWait)
	defer cancel()
	return c.CheckBucket(ctx, false, "")
}

// pushOutcome is push's human line: what it sent, or, for the log of a
// background push, that push of session failed and why.
func pushOutcome(session string, res *s3remote.PushResult, err error) string {
	if err != nil {
		what := "push"
		if session != "" {
			what += " --session " + session
		}
		return what + " failed: " + err.Error()
	}
	return fmt.Sprintf("pushed %s: %d objects in %d packs, %s sent, %d objects (%s) already there",
		strings.Join(res.Sessions, ", "), res.Objects, res.Packs, termout.HumanBytes(res.BytesSent),
		res.ObjectsDeduplicated, termout.HumanBytes(res.BytesDeduplicated))
}

func (e *Env) pullCmd() *cobra.Command {
	var apply bool
	c := &cobra.Command{
		Use:   "pull [--session NAME] [--apply]",
		Short: "Bring the remote's newest turns of the session into the store (--apply: and into the folder)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.WithRepo(cmd, turnback.AccessWrite, func(repo *turnback.Repo) error {
				_, c, err := e.client(cmd, repo)
				if err != nil {
					return err
				}
				session, err := e.pullSession(cmd.Context(), repo, c)
				if err != nil {
					return err
				}
				res, err := onStore(cmd.Context(), repo, "pull", pullRequest{Env: creds(e.Getenv), Session: session}, pullHere)
				if err != nil {
					return err
				}
				next, err := e.nextCommand(cmd.Context(), repo, res.Session)
				if err != nil {
					return err
				}
				if apply && res.Pending != nil {
					return e.applyPulled(cmd.Context(), repo, res, next)
				}
				if apply && e.json() {
					termout.WriteJSON(e.Stdout, map[string]any{"pull": res, "apply": nil})
					return nil
				}
				e.print(res, pulledText(res, next, apply, e.color()))
				return nil
			})
		},
	}
	c.Flags().BoolVar(&apply, "apply", false, "then bring into the folder what the pulled turns changed; edits made in the folder are never overwritten (a path in the way: exit 3, nothing changed)")
	return c
}

func (e *Env) cloneCmd() *cobra.Command {
	var cfg s3.Config
	c := &cobra.Command{
		Use:   "clone s3://BUCKET/PREFIX FOLDER [--session NAME]",
		Short: "Make an empty folder a copy of a remote session, with its turns",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg.URL = args[0]
			if _, _, err := s3.ParseURL(cfg.URL); err != nil {
				return e.Usage(err)
			}
			wd, err := e.Getwd()
			if err != nil {
				return err
			}
			folder := args[1]
			if !filepath.IsAbs(folder) {
				folder = filepath.Join(wd, folder)
			}
			store := e.Store()
			if store != "" && !filepath.IsAbs(store) {
				store = filepath.Join(wd, store)
			}
			env := e.withEnv(s3.Config{})
			if cfg.Endpoint == "" {
				cfg.Endpoint = env.Endpoint
			}
			if cfg.Region == "" {
				cfg.Region = env.Region
			}
			c, err := s3.New(e.withEnv(cfg))
			if err != nil {
				return e.Usage(err)
			}
			session, err := e.cloneSession(cmd.Context(), c)
			if err != nil {
				return e.Ambiguous(err)
			}
			res, err := s3remote.Clone(cmd.Context(), c, cfg, filepath.Clean(folder), turnback.Options{Store: store, Session: session})
			if err != nil {
				return err
			}
			doc := map[string]any{"work_tree": folder, "session": session, "restored": res.Restored, "pull": res.Pull}
			if res.Restore != nil {
				doc["not_restorable"] = res.Restore.NotRestorable
			}
			e.print(doc, fmt.Sprintf("cloned %s into %s: %d turn%s, %d objects, %s received\n",
				termout.Paint(e.color(), termout.SessionColor, termout.SafeText(session)), termout.SafeText(folder), res.Pull.Turns, termout.Plural(res.Pull.Turns), res.Pull.Objects, termout.HumanBytes(res.Pull.BytesReceived)))
			return nil
		},
	}
	c.Flags().StringVar(&cfg.Endpoint, "endpoint", "", "server URL (default: $AWS_ENDPOINT_URL), recorded as the clone's remote")
	c.Flags().StringVar(&cfg.Region, "region", "", "region (default: $AWS_REGION)")
	return c
}

// stagePrefix names a push's staging directories in the store
// directory; staleStage is the age after which one is a killed push's
// (a push that takes longer fails anyway: the remote gc grace period).
const (
	stagePrefix = "push-stage-"
	staleStage  = s3remote.DefaultGrace
)

// newStageDir makes a push's staging directory in storeDir, removing
// those that killed pushes left.
func newStageDir(storeDir string) (string, error) {
	if ents, err := os.ReadDir(storeDir); err == nil {
		for _, ent := range ents {
			if info, err := ent.Info(); err == nil && strings.HasPrefix(ent.Name(), stagePrefix) && time.Since(info.ModTime()) > staleStage {
				os.RemoveAll(filepath.Join(storeDir, ent.Name()))
			}
		}
	}
	dir, err := os.MkdirTemp(storeDir, stagePrefix)
	if err != nil {
		return "", fmt.Errorf("turnback: push: %w", err)
	}
	return dir, nil
}
