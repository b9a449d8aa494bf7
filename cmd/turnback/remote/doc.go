// Package remote holds the commands of turnback's remote: remote set,
// remote show, remote verify, remote gc, push, pull and clone. Package
// main registers them (Commands) with the few things they need of it
// (Env): its output streams, --json, environment, the way every command
// opens its store, and how it marks a usage error.
//
// # Configuration and credentials
//
// "remote set s3://BUCKET/PREFIX" records the address in the store
// (turnback.Repo.SetRemote) with the endpoint and region given as flags
// or, failing those, taken from AWS_ENDPOINT_URL (AWS_ENDPOINT_URL_S3
// first) and AWS_REGION (AWS_DEFAULT_REGION) at that moment. Credentials
// are recorded only when given as flags (--access-key, --secret-key);
// otherwise every command reads AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
// and AWS_SESSION_TOKEN when it runs, and none means anonymous
// requests. Whenever an endpoint is set, buckets are addressed
// path-style. The bucket must exist unless --create is given.
//
// # Background push
//
// StartBackgroundPush (TURNBACK_REMOTE_PUSH=1, called by end and the
// agent hooks' end) starts "turnback push --log STORE/push.log" for the
// end's session as a detached process with the caller's environment
// and returns without waiting. In that mode push takes push.lock in the
// store (one background push at a time: overlapping pushes of one
// session could write the older head last), probes the bucket (15 s)
// with the store closed, then pushes, and appends its time-stamped
// outcome to push.log; stdout and stderr are the null device. Nothing
// it does reaches the end that started it.
//
// # Failure behaviour
//
// Errors are the root API's (turnback.ErrNoRemote, ErrRemoteSession,
// ErrDiverged, ErrNotEmpty, ErrVerify) and package s3's, printed as every
// command prints its errors; a bad address or flag is a usage error
// (exit 2), a pull refused as diverged (ErrDiverged: nothing changed) a
// conflict (exit 3). remote verify that finds problems lists them and
// exits 1.
package remote
