package lease

import (
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/lifecycle/startstoptest"
)

// TestStartStop: the lease manager keeps the lifecycle contract.
func TestStartStop(t *testing.T) {
	m, _ := newManager(dbtest.Open(t, db.SQLite), "s1", &members{n: 1})
	startstoptest.Stress(t, m)
}
