// Package sessname holds the one rule for session names, shared by
// every layer that takes a name from outside: the CLI (--session,
// TURNBACK_SESSION), the HTTP API, MCP, the agent hooks, the store and
// the remote's head keys (package cas/s3).
//
// A valid name is 1 to MaxLen bytes of UTF-8, not "." or "..", made of
// printable characters other than space, '/' and '\'. So a name is
// always one path segment, prints as itself and never escapes the
// folder of heads it names on a remote. Names that differ only in case
// are different sessions; package cas/s3 spells them apart in object
// names so that stores which fold case keep them apart too.
package sessname
