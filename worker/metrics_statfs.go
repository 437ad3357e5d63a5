//go:build linux || darwin

package worker

import "syscall"

// freeDiskMB is the space unprivileged processes can use on dir's file
// system.
func freeDiskMB(dir string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0
	}
	return int64(uint64(st.Bavail) * uint64(st.Bsize) / (1 << 20))
}
