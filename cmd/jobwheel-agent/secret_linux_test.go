package main

import (
	"syscall"
	"testing"
)

// TestAgentIsNotDumpable (issue 11, item 4): once keepSecret has run, the
// agent is non-dumpable, so processes of its own (non-root) user — the
// scripts it runs — cannot read its memory or its /proc files. (The e2e
// TestAgentHidesSecret checks the re-executed agent's environment.)
func TestAgentIsNotDumpable(t *testing.T) {
	t.Setenv(secretEnv, "") // nothing to hide, so keepSecret does not re-execute
	t.Setenv(secretFDEnv, "")
	if _, _, err := keepSecret(nil); err != nil {
		t.Fatal(err)
	}
	// PR_GET_DUMPABLE = 3.
	dumpable, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, 3, 0, 0)
	if errno != 0 {
		t.Fatal(errno)
	}
	if dumpable != 0 {
		t.Fatalf("PR_GET_DUMPABLE = %d after keepSecret, want 0", dumpable)
	}
}
