// Package bgpush starts the background push an end asks for
// (TURNBACK_REMOTE_PUSH=1), and writes the log it appends to. It is
// apart from package remote so that turnback, which leaves the S3
// remote out, can start turnback-full's push without linking it.
package bgpush
