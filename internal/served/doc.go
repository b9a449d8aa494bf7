// Package served is the backend of a turnback.Repo whose store a watch
// daemon holds: each operation is one request to the daemon, through
// internal/api's client on the daemon's unix socket, and returns the
// values and errors the operation returns in the daemon.
//
// Terms:
//   - a Conn is what every view of one served Repo shares: the client,
//     and the store this process opened itself once the daemon was gone;
//   - a View is one view (session) of the Repo; it implements Backend;
//   - the local store is that fallback, a Local the root opens (Store.Open).
//
// Invariants:
//   - a call the daemon did not run (api.ErrNotServed: gone or stopping)
//     runs here instead, on the local store, opened once and kept until
//     Close; every later call of every view runs there too;
//   - the errors are the daemon's, with the sentinels callers branch on
//     (internal/model's, api.ErrDaemonLost, *api.DaemonStoppedError);
//   - this package never imports the root package: the root passes what
//     it needs (Store, Options) and implements Backend with its own
//     localRepo.
package served
