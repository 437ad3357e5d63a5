//go:build !unix

package wheel

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
