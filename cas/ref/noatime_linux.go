package ref

import "syscall"

const noAtime = syscall.O_NOATIME
