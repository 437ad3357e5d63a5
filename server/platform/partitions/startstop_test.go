package partitions

import (
	"log/slog"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/lifecycle/startstoptest"
)

// TestStartStop: the maintainer keeps the lifecycle contract.
func TestStartStop(t *testing.T) {
	startstoptest.Stress(t, New(Config{}, dbtest.Open(t, db.SQLite), slog.New(slog.DiscardHandler)))
}
