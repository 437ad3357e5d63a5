//go:build !(linux || darwin)

package worker

// freeDiskMB is not measured on this platform.
func freeDiskMB(string) int64 { return 0 }
