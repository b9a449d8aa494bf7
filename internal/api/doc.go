// Package api is the daemon's HTTP API as its two sides share it: the
// documents (types.go: what internal/daemon makes from the model's
// values and serves, described by internal/daemon/openapi.json) and
// the client that sends the requests and reads the answers back into
// the model's values (Client; internal/served, the backend of a
// daemon-served Repo, runs its methods through it). The transport under
// it (socket, token, Turnback-* headers, the stream's counters) is
// watch/daemon's.
package api
