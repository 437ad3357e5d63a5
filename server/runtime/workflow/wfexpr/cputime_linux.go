//go:build linux

package wfexpr

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time the calling OS thread has used; an evaluation
// runs locked to its thread, so the difference of two readings is what the
// evaluation used, however busy the rest of the machine is.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return wallCPU()
	}
	return time.Duration(ts.Nano())
}
