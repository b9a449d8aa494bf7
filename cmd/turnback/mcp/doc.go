// Package mcp is "turnback mcp": a Model Context Protocol server, on
// stdin and stdout (the official Go SDK's stdio transport), that gives
// an agent's model turnback's history of the folder and its undo.
//
// # Tools
//
// turnback_turns lists the session's turns (newest first, undone ones
// marked, at most limit); turnback_show lists the paths one turn
// changed (by number, or by a snapshot id that begins or ends it);
// turnback_diff gives the unified diff of a turn, of two snapshots, or
// of the folder since the session's last snapshot; turnback_status the
// paths changed since the session's last snapshot; turnback_undo and
// turnback_redo undo and redo count turns and list every path they
// changed (undo with paths: only what the turns changed at or below
// them; dry_run: what they would change, changing nothing, and a
// preview that would stop at conflicts is a result saying so, not an
// error). Each tool's input is a Go struct whose JSON schema the SDK
// derives (the jsonschema tags are the descriptions the model reads)
// and checks before the handler runs; each result is a typed struct
// (the structured content; the SDK also sends it as JSON text). Path
// lists stop at 200 (the rest counted in "more"), diffs at 16 KiB a
// file and 64 KiB in all ("truncated"), so a result stays short.
//
// # Folder and session
//
// A call works on its folder argument (relative to the server's working
// directory), else on -C, else on the server's working directory; as
// the CLI does, the store is the nearest folder above with one
// (envopt.Locate). The session is the session argument, else --session
// or TURNBACK_SESSION, each a name or a unique prefix
// (turnback.Repo.FindSession); unlike the CLI, a name no session has
// (but "default") is an error (ErrUnknownSession), since these tools
// never start one.
// With none named, every tool but a diff between snapshot ids (not turn
// references, @N) takes the
// session of the folder's newest turn when "default" has none
// (turnback.Repo.LatestSession), as the CLI's commands do; two live
// sessions are an error that lists them.
//
// # Stores and daemons
//
// The server holds no store between calls: each call opens the folder's
// store with the access it needs (read-only for turns, show and diff;
// status as the CLI's; read-write for undo and redo), and closes it
// before it answers, so hooks and the CLI run between calls. Undo and
// redo in a folder without a store fail (ErrNoStore) and create none.
// While a watch daemon serves the folder it holds the store, and Open
// returns a Repo the daemon serves (turnback.Repo.Served): the call runs
// in the daemon. Should the daemon hold the store without taking the call
// (one of an older turnback), the call fails at once with ErrDaemon,
// saying how to stop it.
//
// # Failure behaviour
//
// Every failure is a tool error (isError, with the cause as text), never
// a protocol error or a crash: arguments the schema refuses (a count
// below 1, unknown fields), an unknown or ambiguous session, a folder
// that does not exist, an unknown snapshot id, a busy store. A conflict
// says that nothing was changed and names the paths edited since the
// turns; force proceeds and keeps those edits in the checkpoint. A path
// of a partial undo outside the folder, or that the turns did not
// change, is an error (turnback.ErrPath). Path names in error
// texts are quoted as the CLI's output quotes them (termout.QuotePath).
package mcp
