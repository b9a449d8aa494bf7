// Package remote is turnback's S3 remote: push, pull and clone of
// sessions, and the remote's verify and gc. It moves a store's records
// and the content they reach to and from a bucket laid out as package
// cas/s3 says. Package internal/exchange keeps what the records mean
// (exchange.Export, exchange.Import); this package moves bytes.
// It lives apart so that a program using the library does not link an
// S3 client. The CLI's commands are in cmd/turnback/remote.
//
// # Terms
//
//   - Remote: a bucket and prefix, recorded in the store by Set
//     (exchange.SetRemoteConfig holds it as JSON).
//   - Push: a session's records and everything they reach that the
//     remote lacks, packed, then the session's head.
//   - Staged push: StagePush writes the packs to a directory, so the
//     store can be closed before Upload.
//   - Pull: the session's newest head into the store, never the folder;
//     what the folder then lacks is the result's Pending
//     (turnback.Repo.Pulled; Repo.ApplyPulled brings it in).
//   - Sessions: the remote's sessions, each summarised from its
//     newest head (exchange.SessionOf).
//   - Clone: an empty folder made a copy of a remote session.
//
// # Invariants
//
//   - A push holds the store only while it reads the records.
//   - A pull downloads no record twice and verifies every one before it
//     is written; the records come after the content is durable.
//   - A pull never forgets local state: see turnback.ErrDiverged.
//   - A clone that fails before it restores leaves no store and no
//     folder it made.
//
// # Errors
//
// ErrNoRemote, ErrRemoteSession, ErrNotEmpty and ErrRemoteHead here;
// turnback.ErrDiverged, turnback.ErrNoSession, turnback.ErrBadSession and
// turnback.ErrVerify from the root; package s3's for the server.
package remote
