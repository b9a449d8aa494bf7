package restore

import "syscall"

func ctimeOf(st *syscall.Stat_t) syscall.Timespec { return st.Ctim }
