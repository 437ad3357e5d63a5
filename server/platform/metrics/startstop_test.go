package metrics

import (
	"log/slog"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/lifecycle/startstoptest"
)

// TestStartStop: the collector keeps the lifecycle contract.
func TestStartStop(t *testing.T) {
	c := NewCollector(CollectorConfig{}, New(), dbtest.Open(t, db.SQLite), noRegistries{}, slog.New(slog.DiscardHandler))
	startstoptest.Stress(t, c)
}
