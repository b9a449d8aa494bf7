// Package model holds the plain values of turnback's model that the
// library's results carry and the HTTP API sends: a turn, a session, a
// change, the results of snap, status, restore, gc and verify. The root
// package re-exports each under its own name (type Turn = model.Turn),
// so a program imports only the root; the API's client and documents
// build on these values without importing the root.
//
// Nothing here does I/O or knows a store.
package model
