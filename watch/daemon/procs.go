package daemon

import "time"

// Proc is a turnback daemon process of this user as the system shows it
// (/proc on Linux): no registry that could go stale, the kernel's own
// view.
type Proc struct {
	PID       int
	Args      []string // argv without argv[0]
	Cwd       string
	Env       map[string]string
	Store     string // from its open database files ("" if none open)
	StoreGone bool   // those files were deleted
	Since     time.Time
	Ticks     uint64 // start time in clock ticks since boot: its identity
	RSSBytes  int64
}
