package workflow

import (
	"log/slog"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/lifecycle/startstoptest"
)

// TestStartStop (issue 23, item 5): the engine — with the evaluator it owns
// when none is given — and a shared evaluator keep the lifecycle contract:
// started and stopped from several goroutines at once, started again after
// a stop, no goroutine left behind.
func TestStartStop(t *testing.T) {
	d := dbtest.Open(t, db.SQLite)
	startstoptest.Stress(t, New(Deps{Store: d, ServerID: "s1", Log: slog.New(slog.DiscardHandler), ReconcileEvery: time.Hour}, 1, 1, &executor{}))
	startstoptest.Stress(t, NewEvaluator(EvaluatorConfig{Workers: 2}))
}
