package daemonop

import (
	"context"
	"encoding/json"
	"sync"
)

// Op runs one operation in the daemon on repo (a *turnback.Repo: the
// view of the request's session) with the request's body, and returns
// the answer's document.
type Op func(ctx context.Context, repo any, body json.RawMessage) (any, error)

var (
	mu  sync.Mutex
	ops = map[string]Op{}
)

// Register adds op under name (a path segment: letters, digits, '-');
// a later Register of the same name replaces it.
func Register(name string, op Op) {
	mu.Lock()
	defer mu.Unlock()
	ops[name] = op
}

// Lookup returns the operation registered under name.
func Lookup(name string) (Op, bool) {
	mu.Lock()
	defer mu.Unlock()
	op, ok := ops[name]
	return op, ok
}

// Call runs the operation name in the daemon serving repo (a
// *turnback.Repo whose Served is true), sending body and decoding the
// answer into out; errors keep the sentinels the root API keeps. When
// the daemon is gone before it ran anything, local runs the operation
// here instead, on a Repo this process opened (as every method of a
// served Repo does). Set by package turnback.
var Call func(ctx context.Context, repo any, name string, body, out any, local func(repo any) error) error
