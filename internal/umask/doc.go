// Package umask reads the process umask without changing it where the
// system allows (Linux), and gives the masks restores of pulled states
// use (Pulled, Masks): no more permission bits than a file made here
// would get, and never group or other write.
package umask
