package walker

import "os"

// OpenNoAtime opens file name of d read-only, without updating its
// access time where the platform allows (O_NOATIME needs the file's
// owner or CAP_FOWNER; otherwise it is an ordinary open). Callers that
// read the work tree outside a capture (a file read again for its
// digests, or cloned) use it, since capture never changes the work tree,
// not even its timestamps.
func OpenNoAtime(d *os.Root, name string) (*os.File, error) { return openNoAtime(d, name) }
