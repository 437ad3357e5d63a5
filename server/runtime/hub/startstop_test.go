package hub

import (
	"testing"

	"github.com/jobwheel/jobwheel/internal/lifecycle/startstoptest"
)

// TestStartStop: an app's worker registry keeps the lifecycle contract.
func TestStartStop(t *testing.T) {
	startstoptest.Stress(t, NewRegistry(1, 7, newHandler()))
}
