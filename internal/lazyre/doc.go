// Package lazyre compiles regular expressions on first use rather than
// at process start: every agent hook and CLI command is a new process,
// and most of them never match the patterns their packages hold.
package lazyre
