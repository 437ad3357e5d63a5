//go:build !unix

package processors

import (
	"os"
	"os/exec"
)

// Without process groups, only the script's own process can be killed.

var (
	sigTerm os.Signal = os.Kill
	sigKill os.Signal = os.Kill
)

func ownGroup(*exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, _ os.Signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
