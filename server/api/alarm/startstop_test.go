package alarm

import (
	"log/slog"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/lifecycle/startstoptest"
)

// TestStartStop: the sender keeps the lifecycle contract.
func TestStartStop(t *testing.T) {
	s, err := New(Config{}, dbtest.Open(t, db.SQLite), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	startstoptest.Stress(t, s)
}
