//go:build unix

package processors

import (
	"os/exec"
	"syscall"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// ownGroup makes the command the leader of a new process group, so its
// children can be signalled with it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup signals every process of the command's group. The group id
// is the leader's pid; once every member is gone it fails with ESRCH,
// which is fine. Should the group not exist while the leader lives (it
// could not be made), SIGKILL still reaches the leader, so Wait returns.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil && sig == syscall.SIGKILL {
		_ = cmd.Process.Kill() // "process already finished" when it was reaped: fine
	}
}
