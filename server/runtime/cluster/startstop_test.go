package cluster

import (
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle/startstoptest"
)

// TestStartStop: the server registry keeps the lifecycle contract
// (registering at each start, leaving at each stop).
func TestStartStop(t *testing.T) {
	startstoptest.Stress(t, newRegistry(dbtest.Open(t, db.SQLite), "s1", clock.System()))
}
