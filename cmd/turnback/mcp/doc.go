// Package mcp is "turnback mcp": a Model Context Protocol server on stdin
// and stdout. It gives an agent's model the folder's turns and their
// undo. What each tool returns is in docs/api.md.
//
// # Terms
//
//   - Tool: turnback_turns, turnback_show, turnback_diff,
//     turnback_status, turnback_undo and turnback_redo. Each takes a Go
//     struct whose JSON schema the SDK derives and checks.
//   - Folder: the folder argument, else -C, else the working directory.
//     The store is the nearest folder above with one.
//   - Session: the session argument, else --session or TURNBACK_SESSION,
//     a name or a unique prefix. Without one, the CLI's rule picks it.
//   - Limits: path lists stop at 200, diffs at 16 KiB a file and 64 KiB
//     in all. The rest is counted.
//
// # Invariants
//
//   - The server holds no store between calls. Each call opens the store,
//     and closes it before it answers.
//   - A session name no session has is an error, but for "default". The
//     tools never start a session.
//   - Undo and redo in a folder without a store fail and create none.
//   - While a daemon serves the folder, the call runs in the daemon.
//   - Every failure is a tool error with the cause as text, never a
//     crash. A conflict says nothing was changed and names the paths.
//   - Paths in error texts are quoted as the CLI quotes them.
package mcp
