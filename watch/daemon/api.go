package daemon

// The HTTP API's headers and its progress stream, shared by the root
// package's client (internal/api) and the server (internal/daemon).
// The documents themselves are internal/api's.

const (
	// StoreHeader and WorkTreeHeader, on a request, name (base64) the
	// store and folder the client means; a server of another answers
	// 421 and runs nothing.
	StoreHeader    = "Turnback-Store"
	WorkTreeHeader = "Turnback-Work-Tree"
	// TestNowHeader, on a request, is an RFC 3339 time the operation
	// stamps turns with and measures from instead of the server's
	// clock: for tests that pin the times they print.
	TestNowHeader = "Turnback-Test-Now"
	// PickHeader ("latest"), on a request, has the server run it on the
	// session the root's LatestSession picks, whatever session it names;
	// "latest-reading" is the same, but another session working now is
	// no error.
	PickHeader = "Turnback-Pick-Session"
	// PickedHeader, on its answer, is that session: a SessionInfo,
	// base64.
	PickedHeader = "Turnback-Picked-Session"
	// UnknownSessionHeader "empty", on a request, has the server take a
	// session the store has no record of as one without turns (the
	// library's rule), where it would answer 404 (kind no_session). The
	// root package's client sends it.
	UnknownSessionHeader = "Turnback-Unknown-Session"
	// LockWaitHeader, on a request, is a Go duration: how long it waits
	// for another client's operation at most, as the client would wait
	// for another process (TURNBACK_LOCK_WAIT). Without it, an hour.
	LockWaitHeader = "Turnback-Lock-Wait"
	// StreamType is the media type of the progress stream: a request
	// that accepts it (and no application/json) gets one JSON document
	// per line (StreamEvent).
	StreamType = "application/x-ndjson"
)

// StreamProgress is the counters of a capture and of a restore as the
// progress stream carries them.
type StreamProgress struct {
	Files        int64 `json:"files"`
	Dirs         int64 `json:"dirs"`
	HashedFiles  int64 `json:"hashed_files"`
	HashedBytes  int64 `json:"hashed_bytes"`
	RestoreDone  int64 `json:"restore_done"`
	RestoreTotal int64 `json:"restore_total"`
}
