package remote

// The remote's commands on a store a watch daemon serves. What needs the
// store runs in the daemon, as private operations of its API (package
// internal/daemonop, on its unix socket only); what needs only the
// network (checking a bucket, remote verify and gc) runs here. A push or
// pull sends the caller's AWS_* variables with it: the daemon's own
// environment is not the caller's.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/turnback/turnback"
	"github.com/turnback/turnback/cas/s3"
	"github.com/turnback/turnback/internal/daemonop"
	s3remote "github.com/turnback/turnback/internal/remote"
)

// credVars are the variables withEnv reads.
var credVars = []string{"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_REGION", "AWS_DEFAULT_REGION",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"}

// creds returns the variables of credVars that getenv sets.
func creds(getenv func(string) string) map[string]string {
	env := map[string]string{}
	for _, k := range credVars {
		if v := getenv(k); v != "" {
			env[k] = v
		}
	}
	return env
}

// configReply is the store's remote, None when it has none.
type configReply struct {
	Config s3.Config `json:"config"`
	None   bool      `json:"none,omitempty"`
}

// pushRequest is a push the daemon runs.
type pushRequest struct {
	Env      map[string]string `json:"env"`
	All      bool              `json:"all,omitempty"`
	Parallel int               `json:"parallel,omitempty"`
	PackSize int               `json:"pack_size,omitempty"`
}

// pullRequest is a pull the daemon runs.
type pullRequest struct {
	Env     map[string]string `json:"env"`
	Session string            `json:"session,omitempty"`
}

func init() {
	register("remote-config", configHere)
	register("remote-set", setHere)
	register("push", pushHere)
	register("pull", pullHere)
}

// register adds fn as the daemon's operation name.
func register[Req, Res any](name string, fn func(context.Context, *turnback.Repo, Req) (Res, error)) {
	daemonop.Register(name, func(ctx context.Context, repo any, body json.RawMessage) (any, error) {
		var req Req
		if len(body) > 0 {
			if err := json.Unmarshal(body, &req); err != nil {
				return nil, fmt.Errorf("turnback: %s: %w", name, err)
			}
		}
		return fn(ctx, repo.(*turnback.Repo), req)
	})
}

// onStore runs fn on repo's store: here when this process holds it,
// else in the daemon that serves it, as its operation name (or here
// after all, when that daemon is gone).
func onStore[Req, Res any](ctx context.Context, repo *turnback.Repo, name string, req Req,
	fn func(context.Context, *turnback.Repo, Req) (Res, error)) (Res, error) {
	if !repo.Served() {
		return fn(ctx, repo, req)
	}
	var out Res
	err := daemonop.Call(ctx, repo, name, req, &out, func(l any) error {
		var err error
		out, err = fn(ctx, l.(*turnback.Repo), req)
		return err
	})
	return out, err
}

// config returns the store's remote (ErrNoRemote when none is set).
func config(ctx context.Context, repo *turnback.Repo) (s3.Config, error) {
	rep, err := onStore(ctx, repo, "remote-config", struct{}{}, configHere)
	switch {
	case err != nil:
		return s3.Config{}, err
	case rep.None:
		return s3.Config{}, s3remote.ErrNoRemote
	}
	return rep.Config, nil
}

func configHere(ctx context.Context, r *turnback.Repo, _ struct{}) (*configReply, error) {
	cfg, err := s3remote.Config(ctx, r)
	if errors.Is(err, s3remote.ErrNoRemote) {
		return &configReply{None: true}, nil
	}
	return &configReply{Config: cfg}, err
}

// setConfig records cfg as the store's remote.
func setConfig(ctx context.Context, repo *turnback.Repo, cfg s3.Config) error {
	_, err := onStore(ctx, repo, "remote-set", cfg, setHere)
	return err
}

func setHere(ctx context.Context, r *turnback.Repo, cfg s3.Config) (struct{}, error) {
	return struct{}{}, s3remote.Set(ctx, r, cfg)
}

// clientOf returns a client of repo's remote, completed from getenv.
func clientOf(ctx context.Context, repo *turnback.Repo, getenv func(string) string) (*s3.Client, error) {
	cfg, err := s3remote.Config(ctx, repo)
	if errors.Is(err, s3remote.ErrNoRemote) {
		return nil, fmt.Errorf("%w: turnback remote set s3://BUCKET/PREFIX", err)
	}
	if err != nil {
		return nil, err
	}
	return s3.New(withEnv(cfg, getenv))
}

// pushHere is a whole push on a store this process holds (the daemon's):
// it needs no staging, the store staying open throughout.
func pushHere(ctx context.Context, r *turnback.Repo, req pushRequest) (*s3remote.PushResult, error) {
	c, err := clientOf(ctx, r, func(k string) string { return req.Env[k] })
	if err != nil {
		return nil, err
	}
	return s3remote.Push(ctx, r, c, s3remote.PushOptions{All: req.All, Parallel: req.Parallel, PackSize: req.PackSize})
}

// pullHere is a pull on a store this process holds.
func pullHere(ctx context.Context, r *turnback.Repo, req pullRequest) (*s3remote.PullResult, error) {
	c, err := clientOf(ctx, r, func(k string) string { return req.Env[k] })
	if err != nil {
		return nil, err
	}
	return s3remote.Pull(ctx, r, c, s3remote.PullOptions{Session: req.Session})
}
