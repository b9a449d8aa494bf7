// Package dirent reads the records Linux's getdents64 fills a buffer
// with (struct linux_dirent64: inode u64, offset s64, record length u16,
// type u8, then the NUL-terminated name), for the walker's and the
// watcher's listings, which call getdents on a directory descriptor
// themselves instead of going through os.File.
//
// # Failure behaviour
//
// The bytes come from the kernel, but are not trusted: a record that is
// too short, runs past the buffer or has an empty name ends the parse
// there (nothing past it is read, nothing panics). Records without an
// inode (deleted entries some filesystems return) and "." and ".." are
// passed over.
package dirent
