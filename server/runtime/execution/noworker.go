package execution

import (
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/runtime/dispatch"
)

// noWorker records, in the batch, why no connected worker can take an
// instance — each worker and the filter that ruled it out, for the
// instance page's "why no worker?" table — unless that is what was
// recorded last (an instance waiting for a worker is looked at again
// every second). The decision itself stays where it is made (fire.go,
// assign.go, instance.go); this only writes it down.
func (s *state) noWorker(c *changes, instanceID int64, req dispatch.Requirements, now time.Time) {
	nw := req.NoWorker(now, s.connected(), dispatch.Usage{})
	if s.findings.Changed(instanceID, nw) {
		c.noWorker = append(c.noWorker, db.InstanceNoWorker{ID: instanceID, NoWorker: nw})
	}
}
