package logs

import (
	"log/slog"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/lifecycle/startstoptest"
)

// TestStartStop: the log store keeps the lifecycle contract.
func TestStartStop(t *testing.T) {
	startstoptest.Stress(t, New(dbtest.Open(t, db.SQLite), nil, nil, slog.New(slog.DiscardHandler)))
}
