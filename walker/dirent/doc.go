// Package dirent reads the records Linux's getdents64 writes into a
// buffer. The walker and the watcher call getdents on a directory
// descriptor themselves, instead of going through os.File.
//
// # Terms
//
//   - Record: struct linux_dirent64: inode u64, offset s64, record length
//     u16, type u8, then the NUL-terminated name.
//
// # Invariants
//
//   - The kernel's bytes are not trusted. A record too short, running
//     past the buffer or with an empty name ends the parse. Nothing
//     panics.
//   - Records without an inode, and "." and "..", are passed over.
package dirent
