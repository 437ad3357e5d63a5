package graph

import (
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// workerStaleAfter is how old a worker's last recorded heartbeat may be
// while it still counts as alive; heartbeats are recorded every few seconds.
const workerStaleAfter = 15 * time.Second

func workerAlive(w *db.Worker) bool {
	return w.DisconnectedAt == nil && time.Since(w.LastHeartbeat) < workerStaleAfter
}
