package remote

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/cmd/turnback/termout"
	s3remote "github.com/turnback/turnback/internal/remote"
)

// Env is what the commands need of package main.
type Env struct {
	Stdout, Stderr io.Writer
	ErrTTY         bool
	JSON           *bool
	Getenv         func(string) string
	// WithRepo opens the command's store (as every command does) and
	// runs fn with it.
	WithRepo func(cmd *cobra.Command, access turnback.Access, fn func(*turnback.Repo) error) error
	// Store and Session are --store and --session (or their variables).
	Store, Session func() string
	// Getwd is the folder the command runs in.
	Getwd func() (string, error)
	// Usage marks err as a usage error (exit 2).
	Usage func(err error) error
	// Ambiguous makes an ambiguous session name exit 2, listing the
	// sessions (as WithRepo does); other errors stay as they are.
	Ambiguous func(err error) error
	// Color and ColorErr report whether stdout and stderr take colour
	// (a terminal, no --json, NO_COLOR unset, TERM not dumb); nil: no.
	Color, ColorErr func() bool
	// Force is --force.
	Force func() bool
	// Exit gives err the exit code code; with doc, --json's error
	// document carries it; without, err was already said.
	Exit func(code int, err error, doc map[string]any) error
}

// Commands returns the remote commands: remote (set, show, verify,
// gc), push, pull and clone.
func Commands(e *Env) []*cobra.Command {
	rc := &cobra.Command{Use: "remote", Short: "Set, show, list, verify and collect the store's S3 remote",
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() }}
	rc.AddCommand(e.setCmd(), e.showCmd(), e.sessionsCmd(), e.verifyCmd(), e.gcCmd())
	cmds := []*cobra.Command{rc, e.pushCmd(), e.pullCmd(), e.cloneCmd()}
	for _, c := range cmds {
		fill(c)
	}
	return cmds
}

func fill(c *cobra.Command) {
	key := c.Name()
	if c.HasParent() && c.Parent().Name() == "remote" {
		key = "remote " + key
	}
	if t, ok := texts[key]; ok {
		c.Long, c.Example = t.long, t.example
	}
	for _, sub := range c.Commands() {
		fill(sub)
	}
}

// config returns the store's remote with what the environment adds, and
// a client for it.
func (e *Env) client(cmd *cobra.Command, repo *turnback.Repo) (s3.Config, *s3.Client, error) {
	cfg, err := config(cmd.Context(), repo)
	if errors.Is(err, s3remote.ErrNoRemote) {
		return cfg, nil, fmt.Errorf("%w: turnback remote set s3://BUCKET/PREFIX", err)
	}
	if err != nil {
		return cfg, nil, err
	}
	cfg = e.withEnv(cfg)
	c, err := s3.New(cfg)
	return cfg, c, err
}

// withEnv fills what cfg lacks from the environment.
func (e *Env) withEnv(cfg s3.Config) s3.Config { return withEnv(cfg, e.Getenv) }

// withEnv fills what cfg lacks from the variables getenv reads.
func withEnv(cfg s3.Config, getenv func(string) string) s3.Config {
	first := func(keys ...string) string {
		for _, k := range keys {
			if v := getenv(k); v != "" {
				return v
			}
		}
		return ""
	}
	if cfg.Endpoint == "" {
		cfg.Endpoint = first("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
	}
	if cfg.Region == "" {
		cfg.Region = first("AWS_REGION", "AWS_DEFAULT_REGION")
	}
	if cfg.AccessKey == "" && cfg.SecretKey == "" {
		cfg.AccessKey, cfg.SecretKey, cfg.Token = getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY"), getenv("AWS_SESSION_TOKEN")
	}
	return cfg
}

func (e *Env) json() bool { return e.JSON != nil && *e.JSON }

// print writes doc with --json, else the human text.
func (e *Env) print(doc any, human string) {
	if e.json() {
		termout.WriteJSON(e.Stdout, doc)
		return
	}
	fmt.Fprint(e.Stdout, human)
}

// showDoc describes a remote without its secret.
func showDoc(cfg s3.Config, stored bool) map[string]any {
	creds := "environment"
	if stored {
		creds = "store"
	}
	return map[string]any{"url": cfg.URL, "endpoint": cfg.Endpoint, "region": cfg.Region, "credentials": creds}
}

func (e *Env) setCmd() *cobra.Command {
	var create bool
	var cfg s3.Config
	c := &cobra.Command{
		Use:   "set s3://BUCKET/PREFIX",
		Short: "Record the store's remote (the bucket must exist, or --create)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg.URL = args[0]
			if _, _, err := s3.ParseURL(cfg.URL); err != nil {
				return e.Usage(err)
			}
			env := e.withEnv(s3.Config{})
			stored := cfg.AccessKey != "" || cfg.SecretKey != ""
			if cfg.Endpoint == "" {
				cfg.Endpoint = env.Endpoint
			}
			if cfg.Region == "" {
				cfg.Region = env.Region
			}
			use := e.withEnv(cfg)
			client, err := s3.New(use)
			if err != nil {
				return e.Usage(err)
			}
			if err := client.CheckBucket(cmd.Context(), create, use.Region); err != nil {
				return err
			}
			return e.WithRepo(cmd, turnback.AccessWrite, func(repo *turnback.Repo) error {
				if err := setConfig(cmd.Context(), repo, cfg); err != nil {
					return err
				}
				e.print(showDoc(cfg, stored), "remote: "+cfg.URL+"\n")
				return nil
			})
		},
	}
	f := c.Flags()
	f.BoolVar(&create, "create", false, "make the bucket if it does not exist")
	f.StringVar(&cfg.Endpoint, "endpoint", "", "server URL, http(s)://HOST[:PORT] (default: $AWS_ENDPOINT_URL; none: AWS S3); buckets are then addressed path-style")
	f.StringVar(&cfg.Region, "region", "", "region (default: $AWS_REGION)")
	f.StringVar(&cfg.AccessKey, "access-key", "", "access key id, recorded in the store (default: $AWS_ACCESS_KEY_ID at each use, not recorded)")
	f.StringVar(&cfg.SecretKey, "secret-key", "", "secret access key, recorded in the store (default: $AWS_SECRET_ACCESS_KEY at each use, not recorded)")
	return c
}

func (e *Env) showCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "show",
		Short: "Print the store's remote (never its secret)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.WithRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) error {
				cfg, err := config(cmd.Context(), repo)
				if err != nil {
					return err
				}
				doc := showDoc(cfg, cfg.AccessKey != "" || cfg.SecretKey != "")
				human := fmt.Sprintf("url:         %s\nendpoint:    %s\nregion:      %s\ncredentials: %s\n", cfg.URL, orNone(cfg.Endpoint), orNone(cfg.Region), doc["credentials"])
				e.print(doc, human)
				return nil
			})
		},
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func (e *Env) verifyCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Read the whole remote back and check every object",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.WithRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) error {
				_, c, err := e.client(cmd, repo)
				if err != nil {
					return err
				}
				res, err := s3remote.Verify(cmd.Context(), c)
				if err != nil && !errors.Is(err, turnback.ErrVerify) {
					return err
				}
				for _, p := range res.Problems {
					fmt.Fprintln(e.Stderr, "turnback: remote verify:", termout.SafeText(p))
				}
				if err != nil {
					return err
				}
				e.print(res, fmt.Sprintf("remote verified: %d packs, %d objects, %s, %d heads\n",
					res.Packs, res.Objects, termout.HumanBytes(res.Bytes), res.Heads))
				return nil
			})
		},
	}
}

func (e *Env) gcCmd() *cobra.Command {
	var grace time.Duration
	var dry bool
	c := &cobra.Command{
		Use:   "gc [--grace DURATION] [--dry-run]",
		Short: "Delete from the remote what no pushed session needs (in two runs a grace period apart)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if grace < 0 {
				return e.Usage(errors.New("turnback: remote gc: --grace must not be negative"))
			}
			return e.WithRepo(cmd, turnback.AccessRead, func(repo *turnback.Repo) error {
				_, c, err := e.client(cmd, repo)
				if err != nil {
					return err
				}
				res, err := s3remote.GC(cmd.Context(), c, s3remote.GCOptions{Grace: grace, DryRun: dry})
				if err != nil {
					return err
				}
				e.print(res, fmt.Sprintf("remote gc: %d packs deleted (%s), %d heads deleted, %d packs pending\n",
					res.PacksDeleted, termout.HumanBytes(res.BytesFreed), res.HeadsDeleted, res.PacksPending))
				return nil
			})
		},
	}
	c.Flags().DurationVar(&grace, "grace", s3remote.DefaultGrace, "delete a pack only once a gc run this long ago found nothing naming it; pushes must finish within it")
	c.Flags().BoolVar(&dry, "dry-run", false, "only count")
	return c
}
