// Package full makes the commands only turnback-full has: the S3 remote
// (remote, push, pull, clone), the MCP server (mcp) and the terminal UI
// (ui). Their libraries would add about 6 ms and 300 page faults to
// every start of turnback, which hooks run many times a turn.
package full
