// Package remote holds the commands of turnback's remote: remote set,
// remote show, remote verify, remote gc, push, pull and clone, over
// internal/remote. Package main registers them with Commands, giving
// them what they need in Env.
// What users see is in docs/remote.md.
//
// # Terms
//
//   - Address: s3://BUCKET/PREFIX, recorded by remote set with its
//     endpoint and region. Flags win; else AWS_ENDPOINT_URL and AWS_REGION
//     at that moment.
//   - Credentials: recorded only when given as flags. Otherwise each
//     command reads AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
//     AWS_SESSION_TOKEN. None means anonymous requests.
//   - Path style: with an endpoint, buckets are addressed as
//     HOST/BUCKET/KEY.
//   - Through a daemon: with a watch daemon serving the store, what
//     needs the store (the address, push, pull) runs there as a private
//     operation of its API (served.go), a push or pull carrying the
//     caller's AWS_* variables over the unix socket; the rest runs here.
//   - Background push: with TURNBACK_REMOTE_PUSH=1, end starts a detached
//     "turnback push --log STORE/push.log" and returns at once.
//
// # Invariants
//
//   - remote show never prints a secret.
//   - Background pushes of one store run one at a time, under push.lock.
//   - Nothing a background push does reaches the end that started it.
//
// # Errors
//
// Those of internal/remote (ErrNoRemote, ErrRemoteSession, ErrNotEmpty),
// the root API's (ErrDiverged, ErrVerify) and package s3's. A bad address or flag is a
// usage error. A pull refused as diverged is a conflict, exit 3: nothing
// changed. remote verify that finds problems exits 1.
package remote
