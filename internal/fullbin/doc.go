// Package fullbin finds turnback-full, the build of turnback that also
// has the commands whose libraries are large: the S3 remote (push, pull,
// clone, remote), the MCP server (mcp) and the terminal UI (ui).
//
// Terms:
//   - turnback: the binary hooks and users run many times a turn. It
//     leaves those libraries out, so each run starts about 6 ms sooner,
//     and hands their commands to turnback-full.
//   - turnback-full: every command. Watch daemons run it when it is
//     there, so a push or pull can run where the store is held.
//
// Invariants:
//   - turnback-full is looked for beside the running executable only,
//     under its own path and under the path with symlinks resolved;
//     never on PATH, where another version may be.
//   - In turnback-full itself (Self), Path is its own executable.
package fullbin
