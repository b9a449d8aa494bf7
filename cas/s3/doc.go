// Package s3 is the layout of turnback's remote. A remote is a bucket and
// prefix on an S3-compatible object store that many stores push sessions
// to and pull them from. The package encodes and checks every object and
// talks to the server through Client. What to push and how to import it
// is package internal/remote's job. The reasons behind the layout are in
// docs/design.md.
//
// # Objects
//
// Under PREFIX/:
//
//	packs/<id>.pack   a pack: PackHeader, then records back to back
//	packs/<id>.idx    its index, written only after the pack is whole
//	heads/<session>/<20-digit Unix ns>-<32 hex>.json
//	                  a head: one push of one session
//	gc/<20-digit Unix ns>.json
//	                  a gc pending list
//
// # Terms
//
//   - Record: a tree, blob or chunk list exactly as package cas stores
//     it, addressed by the BLAKE3 of its content.
//   - Pack: records back to back, about 16 MiB. Its id is the BLAKE3 of
//     its bytes.
//   - Index: each record's kind, address, offset and length, ending with
//     its own checksum.
//   - Head: a session's records and the packs they need. The newest head
//     of a session is the session.
//   - Pending list: packs no head named when a gc run listed them.
//   - Grace period: how long a pending pack waits before a later run
//     deletes it. Default 24 hours.
//
// # Invariants
//
//   - Every object is immutable and written whole in one PUT. No lock and
//     no conditional write are needed.
//   - A push writes packs, then their indexes, then its head. A killed
//     push leaves only objects no head names.
//   - A push never reuses a pending pack, and never writes its head once
//     the grace period has passed since it started.
//   - Two stores pushing one session: the newer head wins.
//   - A session name in a key is one package sessname accepts. It is
//     path-escaped, each capital letter written as '!' and its small
//     letter, so a store that folds case keeps "Foo" and "foo" apart.
//   - gc deletes nothing while any object under heads/ is not a readable
//     head.
//   - Nothing from the server is trusted. Records are checked against
//     their address, indexes against their checksum, heads and lists by
//     strict decoding.
//   - gc assumes clocks within minutes of the server's.
//
// # Errors
//
// A damaged object wraps ErrCorrupt, a missing one ErrNotFound, a bad
// address ErrURL. Each error names the object as s3://BUCKET/KEY.
package s3
