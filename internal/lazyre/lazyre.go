package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr when first called and
// returns that same *regexp.Regexp on every call. Like
// regexp.MustCompile, it panics if expr does not parse, at that first
// call: a package's tests must use each of its patterns.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
