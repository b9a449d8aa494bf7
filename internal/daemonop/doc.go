// Package daemonop lets a package that imports turnback add operations
// to what a watch daemon serves, and call them on a Repo a daemon
// serves: the remote's push and pull (cmd/turnback/remote) run where
// the store is held. They travel over the daemon's HTTP API as POST
// /v1/ops/{name}, on its private unix socket only (never on TCP): a
// request may carry the caller's credentials. The operations are not
// part of the public API or of its OpenAPI document.
//
// Package turnback sets Call when it is loaded, and serves the
// operations registered here (Lookup); repo is an any because this
// package cannot import turnback.
package daemonop
