package dispatch

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// This file answers "why no worker?" per worker: where Explain sums the
// reasons up in a sentence, Verdicts lists each connected worker and the
// filter that ruled it out, which the execution actor records on an
// instance it cannot dispatch (db.NoWorker) and the console shows as a
// table.

// Usage is what an instance already has on workers, for the limits that
// can rule out a worker that meets the requirements: taskConcurrency tasks
// per worker and maxWorkers distinct workers. The zero value is an
// instance with nothing on any worker.
type Usage struct {
	// Used counts the instance's tasks in flight per worker id.
	Used            map[string]int
	TaskConcurrency int
	MaxWorkers      int
}

// Verdicts says, for each worker (sorted by id), why it cannot take a task
// of the instance now: the first of the job's requirements it fails, else
// that it is draining, has no free slot, already runs the instance's
// taskConcurrency, or would exceed its maxWorkers. Workers that could take
// one are left out.
func (r Requirements) Verdicts(workers []*Worker, u Usage) []db.WorkerVerdict {
	distinct := 0
	for _, n := range u.Used {
		if n > 0 {
			distinct++
		}
	}
	limit := max(u.TaskConcurrency, 1)
	out := make([]db.WorkerVerdict, 0, len(workers))
	for _, w := range workers {
		filter, reason := r.rejection(w)
		used := u.Used[w.ID]
		switch {
		case filter != "":
		case w.Draining:
			filter, reason = db.FilterDraining, "is draining: it finishes its tasks and takes no new ones"
		case w.Free() <= 0:
			filter, reason = db.FilterFull, fmt.Sprintf("has no free slot (%d slots)", w.Slots)
		case used >= limit:
			filter, reason = db.FilterTaskLimit, fmt.Sprintf("already runs %d task(s) of this instance (taskConcurrency %d)", used, limit)
		case u.MaxWorkers > 0 && used == 0 && distinct >= u.MaxWorkers:
			filter, reason = db.FilterMaxWorkers, fmt.Sprintf("the instance already runs on %d other worker(s) (maxWorkers %d)", distinct, u.MaxWorkers)
		default:
			continue
		}
		out = append(out, db.WorkerVerdict{Worker: w.ID, Host: w.Host, Filter: filter, Reason: reason})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Worker < out[j].Worker })
	return out
}

// NoWorker is the finding recorded on an instance no connected worker can
// take, made at `at`.
func (r Requirements) NoWorker(at time.Time, workers []*Worker, u Usage) *db.NoWorker {
	return &db.NoWorker{At: db.Stamp(at), Workers: r.Verdicts(workers, u)}
}

// Findings remembers the finding last recorded per instance, so that one
// that has not changed is not written again: an instance WAITING for a
// worker is looked at again every second or so. The zero value is ready.
type Findings struct {
	last map[int64]string
}

// maxFindings bounds what Findings remembers; past it, it forgets all,
// which costs one more write per instance still waiting.
const maxFindings = 4096

// Changed says whether nw differs from the finding last recorded for the
// instance (its time aside), and remembers it.
func (f *Findings) Changed(instanceID int64, nw *db.NoWorker) bool {
	var b strings.Builder
	for _, v := range nw.Workers {
		fmt.Fprintf(&b, "%s\x00%s\x00%s\x00%s\x01", v.Worker, v.Host, v.Filter, v.Reason)
	}
	key := b.String()
	if f.last == nil || len(f.last) >= maxFindings {
		f.last = map[int64]string{}
	}
	if old, ok := f.last[instanceID]; ok && old == key {
		return false
	}
	f.last[instanceID] = key
	return true
}
