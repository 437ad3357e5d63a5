package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// JOBWHEEL_E2E_BIN names a directory holding both binaries; anything else
// is refused saying what is missing and how to build it.
func TestPrebuilt(t *testing.T) {
	dir := t.TempDir()
	if _, err := prebuilt(dir); err == nil || !strings.Contains(err.Error(), "jobwheel-server") || !strings.Contains(err.Error(), "go build") {
		t.Errorf("empty directory: %v", err)
	}
	server, agent := filepath.Join(dir, "jobwheel-server"), filepath.Join(dir, "jobwheel-agent")
	if err := os.WriteFile(server, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(agent, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := prebuilt(dir); err == nil || !strings.Contains(err.Error(), "jobwheel-agent is not an executable file") {
		t.Errorf("agent not executable: %v", err)
	}
	if err := os.Chmod(agent, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := prebuilt(dir)
	if err != nil || b.Server != server || b.Agent != agent || b.Dir != dir {
		t.Errorf("prebuilt = %+v, %v", b, err)
	}
}
