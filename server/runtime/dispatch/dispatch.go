// Package dispatch chooses workers for tasks: it filters an app's connected
// workers by what a job requires (processor, designated workers, tags,
// minimum cores, memory and disk) and picks among those with a free slot by
// the job's strategy. It is pure: the caller owns the worker state.
//
// When nothing qualifies, Explain says why in words an operator can act on
// ("2 workers connected; none has tag gpu"), which is what an instance
// failed with NO_WORKER shows.
package dispatch

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// Worker is what selection needs to know about a connected worker.
type Worker struct {
	ID         string
	Host       string
	Tags       []string
	Processors []string // GO processor names
	Types      []string // SHELL, PYTHON, HTTP
	Slots      int
	Busy       int // tasks assigned and not finished
	Metrics    protocol.Metrics
	// Draining: the worker is stopping gracefully and takes no new tasks.
	Draining bool
}

// Free is the number of tasks the worker can take now.
func (w *Worker) Free() int {
	if w.Draining {
		return 0
	}
	return w.Slots - w.Busy
}

// Requirements are a job's demands on workers.
type Requirements struct {
	ProcessorType string
	Processor     string // the GO processor name
	Filter        db.WorkerFilter
}

// FromJob returns a job's requirements.
func FromJob(j *db.Job) Requirements {
	return Requirements{ProcessorType: j.ProcessorType, Processor: j.Processor, Filter: j.WorkerFilter}
}

// rejection says why a worker does not qualify: the first filter it fails
// (db.Filter*) and that in words; "", "" if it qualifies.
func (r Requirements) rejection(w *Worker) (filter, reason string) {
	if r.ProcessorType == "GO" {
		if !slices.Contains(w.Processors, r.Processor) {
			return db.FilterProcessor, fmt.Sprintf("does not register GO processor %q", r.Processor)
		}
	} else if !slices.Contains(w.Types, r.ProcessorType) {
		return db.FilterProcessor, fmt.Sprintf("does not run %s processors", r.ProcessorType)
	}
	f := r.Filter
	if len(f.Designated) > 0 && !slices.ContainsFunc(f.Designated, func(d string) bool { return d == w.ID || d == w.Host }) {
		return db.FilterDesignated, "is not among the designated workers " + strings.Join(f.Designated, ", ")
	}
	for _, tag := range f.Tags {
		if !slices.Contains(w.Tags, tag) {
			return db.FilterTag, fmt.Sprintf("lacks tag %q", tag)
		}
	}
	if f.MinCPUCores > 0 && w.Metrics.CPUCores < f.MinCPUCores {
		return db.FilterCPU, fmt.Sprintf("has %d CPU cores, fewer than %d", w.Metrics.CPUCores, f.MinCPUCores)
	}
	if f.MinMemoryMB > 0 && w.Metrics.FreeMemoryMB < f.MinMemoryMB {
		return db.FilterMemory, fmt.Sprintf("has %d MB free memory, less than %d", w.Metrics.FreeMemoryMB, f.MinMemoryMB)
	}
	if f.MinDiskMB > 0 && w.Metrics.FreeDiskMB < f.MinDiskMB {
		return db.FilterDisk, fmt.Sprintf("has %d MB free disk, less than %d", w.Metrics.FreeDiskMB, f.MinDiskMB)
	}
	return "", ""
}

// Eligible returns the workers that meet the requirements, busy or not,
// sorted by id.
func (r Requirements) Eligible(workers []*Worker) []*Worker {
	var out []*Worker
	for _, w := range workers {
		if f, _ := r.rejection(w); f == "" {
			out = append(out, w)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Explain says why no worker meets the requirements.
func (r Requirements) Explain(appName string, workers []*Worker) string {
	if len(workers) == 0 {
		return fmt.Sprintf("no worker of app %q is connected", appName)
	}
	reasons := map[string][]string{}
	var order []string
	for _, w := range workers {
		_, why := r.rejection(w)
		if _, seen := reasons[why]; !seen {
			order = append(order, why)
		}
		reasons[why] = append(reasons[why], w.Host)
	}
	parts := make([]string, 0, len(order))
	for _, why := range order {
		parts = append(parts, fmt.Sprintf("%d %s", len(reasons[why]), why))
	}
	return fmt.Sprintf("%d worker(s) of app %q connected, none qualifies: %s", len(workers), appName, strings.Join(parts, "; "))
}

// Picker picks one worker among candidates by a strategy. It keeps the
// round-robin position, so keep one per app.
type Picker struct {
	next int
	rand func(n int) int
	// picks counts picks; lastPicked is the count at each worker's last
	// pick, for LEAST_RECENTLY_USED.
	picks      uint64
	lastPicked map[string]uint64
}

// NewPicker returns a Picker.
func NewPicker() *Picker {
	return &Picker{rand: func(n int) int { return rand.N(n) }, lastPicked: map[string]uint64{}}
}

// Pick returns a candidate with a free slot, or nil. Candidates must be
// sorted by id (as Eligible returns them).
func (p *Picker) Pick(strategy string, candidates []*Worker) *Worker {
	free := make([]*Worker, 0, len(candidates))
	for _, w := range candidates {
		if w.Free() > 0 {
			free = append(free, w)
		}
	}
	if len(free) == 0 {
		return nil
	}
	var w *Worker
	switch strategy {
	case db.DispatchRandom:
		w = free[p.rand(len(free))]
	case db.DispatchRoundRobin:
		p.next++
		w = free[p.next%len(free)]
	case db.DispatchLeastRecentlyUsed:
		w = p.leastRecentlyUsed(free)
	default:
		best := free[0]
		for _, w := range free[1:] {
			if Health(w) > Health(best) {
				best = w
			}
		}
		w = best
	}
	p.used(w, candidates)
	return w
}

// Health scores a worker from its heartbeat and its load from us: the share
// of slots free, discounted by CPU load per core and by scarce memory.
// Higher is better.
func Health(w *Worker) float64 {
	score := float64(w.Free()) / float64(max(w.Slots, 1))
	if cores := w.Metrics.CPUCores; cores > 0 {
		score /= 1 + w.Metrics.Load1/float64(cores)
	}
	if mem := w.Metrics.FreeMemoryMB; mem > 0 && mem < 512 {
		score *= float64(mem) / 512
	}
	return score
}
