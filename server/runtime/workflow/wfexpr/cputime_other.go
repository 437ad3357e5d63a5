//go:build !linux

package wfexpr

import "time"

// threadCPU falls back to elapsed time where a thread's CPU time cannot be
// read: an evaluation is then bounded by wall time, which is never less
// than its CPU time.
func threadCPU() time.Duration { return wallCPU() }
