// Package ref finds and reads file content by reference. Such content is
// not copied into the store, because it already sits somewhere turnback
// can read and verify by hash, without running git.
//
// # Terms
//
//   - Place: where content sits: LFS, Git or Clone.
//   - LFS: a Git LFS object, <lfs dir>/objects/aa/bb/<sha256>.
//   - Git: a blob in git's object database, loose or packed, named by
//     its git blob id.
//   - Clone: a copy-on-write clone in the store's clone directory, named
//     by the content's BLAKE3. CloneFile makes it.
//   - Finder: locates a directory's repository, says which digest can
//     find a file (Want), and checks a place cheaply (Check).
//   - Record: what a store keeps per content hash: size, digests and
//     places. Encode and Decode give its binary form.
//
// # Invariants
//
//   - Nothing here writes to a repository or runs git.
//   - Lookup is by content, not by path. A filtered file finds nothing.
//   - Places inside the work tree but outside .git are refused: a restore
//     may delete them.
//   - Every file is opened only if it is a regular file, without blocking.
//   - A hostile pack cannot make the reader allocate over 2 GiB per object
//     or follow a delta chain longer than 1000.
//   - Open returns what a place holds now. Callers verify it against the
//     content's hash.
//
// # Errors
//
// A missing or changed object wraps ErrStale, or names the file.
package ref
