// Package s3 is the layout of turnback's remote: a bucket and prefix on
// an S3-compatible object store (AWS S3, MinIO, Ceph RGW, R2, versitygw)
// that many stores push sessions to and pull them from. It encodes and
// checks every object (packs, their indexes, heads, gc lists) and talks
// to the server through Client; what to push and how to import it is
// package turnback's (remote*.go).
//
// # Objects
//
// Under PREFIX/ (every name relative to it):
//
//	packs/<id>.pack   a pack: PackHeader, then stored records back to back
//	packs/<id>.idx    its index: written only after the pack is whole
//	heads/<session>/<20-digit Unix ns>-<32 hex>.json
//	                  a head: one push of one session (Head)
//	gc/<20-digit Unix ns>.json
//	                  a gc pending list (Pending)
//
// A record is exactly what package cas stores under b/ (a tree or a
// blob: a codec byte, then the content raw or as one zstd frame) or x/
// (a chunk list), addressed by the BLAKE3 of its content. A pack gathers
// many (a push fills one to about 16 MiB, so a first push of a large
// tree is a few objects per 16 MiB, never one object per file); its id
// is the BLAKE3 of its bytes, so the same pack written twice is the same
// object. The index lists each record's kind (tree, blob, chunk list),
// address, offset and length, and ends with the BLAKE3 of itself
// (EncodeIndex, DecodeIndex): a reader fetches one index per pack and
// then only the byte ranges it lacks.
//
// A head carries a session's records (session, turns, snapshot and
// checkpoint records of package turnback, as JSON) and the ids of every
// pack that holds an object they reach. Its name holds the time of the
// push and the BLAKE3 of its body; the newest head of a session is the
// session. A session name (one that package sessname accepts: never "."
// or "..", no slash) is path-escaped in the name, with each capital
// letter written '!' and its small letter, so that a store which folds
// case keeps "Foo" and "foo" apart (HeadsDir); heads written before
// that spelling, under the name only path-escaped, are still read.
//
// # Many writers
//
// Every object is immutable and written in one PUT, so it appears whole
// or not at all; no object is ever read, modified and written back, so no
// conditional put and no lock are needed. Packs and indexes are named by
// their content: two stores pushing the same base write the same objects
// (or one skips what the other already wrote). A push writes packs
// first, each pack's index after the pack, and its head last, after every
// index it names: a push killed at any point leaves whole objects that
// nothing names yet, and the next push reuses them (an index proves its
// pack complete). Heads of one session written by two stores are both
// kept; the newer one is the session (last writer wins, like a forced
// git push): sessions are per agent conversation, so two stores pushing
// one session name is a mistake turnback does not try to merge.
//
// Conditional writes (If-None-Match) would let a head refuse to replace
// another; they are not needed for safety here, and servers differ in
// support (versitygw, the test server, implements the S3 API's
// conditional headers only in recent releases), so none is used.
//
// # Garbage collection
//
// A pack no head names is garbage once no push in flight can still name
// it. gc works in two steps separated by a grace period (default 24 h):
// a run lists the heads, writes a pending list (gc/) of the packs none
// names, and deletes the packs of pending lists older than the grace
// period that still no head names (index first, then pack), and those
// lists. A push reads the pending lists when it starts and never reuses
// a pack on one, and refuses to write its head once the grace period has
// passed since it started: so a pack it reused was not pending when it
// started, and its head is visible before any run could delete that
// pack. A pack a push builds that has the name of a pending one gets
// bytes after its last record (a nonce), hence another name: otherwise
// a run could delete the object the push wrote again before the push's
// head is seen. Heads a newer head of the same session replaced go in the same
// run when older than the grace period. This assumes clocks within
// minutes of each other (the server stamps the pending lists).
//
// # Verification
//
// Nothing from the server is trusted: every record is checked against
// its address before use (VerifyRecord; a chunk list by reading its
// chunks), every index against its checksum, every head and list by
// strict decoding. A damaged or missing object is an error wrapping
// ErrCorrupt or ErrNotFound that names it (s3://BUCKET/KEY).
//
// # Failure behaviour
//
// Client wraps the server's errors with the operation and object name;
// a missing object or bucket wraps ErrNotFound, a bad address ErrURL.
// Client counts requests and bytes sent and received (for the push and
// pull summaries and the tests that bound them).
package s3
