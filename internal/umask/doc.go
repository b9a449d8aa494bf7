// Package umask reads the process umask without changing it where the
// system allows (Linux), for code that must not grant more permission
// bits than a file made here would get.
package umask
