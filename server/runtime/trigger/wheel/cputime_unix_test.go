//go:build unix

package wheel

import (
	"syscall"
	"time"
)

// cpuTime is the process's user plus system CPU time, or false where it
// cannot be read.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
