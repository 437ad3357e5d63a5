package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// NoWorker is why no connected worker could take an instance, as the
// execution actor last found it when it could not dispatch the instance:
// each worker of the app connected then, and the filter that ruled it out.
// It is overwritten by the next finding, never appended to, and kept once
// the instance ran after all (it says why it waited).
type NoWorker struct {
	// At is when this was found.
	At time.Time `json:"at"`
	// Workers are the connected workers, by id; empty when none was
	// connected.
	Workers []WorkerVerdict `json:"workers"`
}

// WorkerVerdict is why one connected worker could not take an instance.
type WorkerVerdict struct {
	Worker string `json:"worker"`
	Host   string `json:"host"`
	// Filter is the first filter the worker failed (Filter*).
	Filter string `json:"filter"`
	// Reason says it in words, with the figures ("has 2 CPU cores, fewer
	// than 8").
	Reason string `json:"reason"`
}

// The filters that rule a worker out, in the order they are applied.
const (
	FilterProcessor  = "PROCESSOR"   // does not serve the job's processor (type or GO name)
	FilterDesignated = "DESIGNATED"  // not among the job's designated workers
	FilterTag        = "TAG"         // lacks a tag the job requires
	FilterCPU        = "CPU"         // fewer CPU cores than required
	FilterMemory     = "MEMORY"      // less free memory than required
	FilterDisk       = "DISK"        // less free disk than required
	FilterDraining   = "DRAINING"    // stopping gracefully; takes no new tasks
	FilterFull       = "FULL"        // no free slot
	FilterMaxWorkers = "MAX_WORKERS" // the instance already uses the job's maxWorkers others
	FilterTaskLimit  = "TASK_LIMIT"  // already runs taskConcurrency tasks of the instance
)

// InstanceNoWorker is one instance's finding, for InstanceSetNoWorkerMany.
type InstanceNoWorker struct {
	ID       int64
	NoWorker *NoWorker
}

// InstanceSetNoWorkerMany records why no worker could take each of the
// instances, replacing what was recorded before, in one statement. It
// changes nothing else, so it needs no compare-and-set: the finding is
// true of the moment it was made whatever the instance became since.
func (s *Store) InstanceSetNoWorkerMany(ctx context.Context, list []InstanceNoWorker) error {
	if len(list) == 0 {
		return nil
	}
	type row struct {
		ID       int64  `bun:"instance_id"`
		NoWorker string `bun:"no_worker"`
	}
	rows := make([]row, 0, len(list))
	for _, r := range list {
		b, err := json.Marshal(r.NoWorker)
		if err != nil {
			return fmt.Errorf("encoding why no worker could take instance %d: %w", r.ID, err)
		}
		rows = append(rows, row{ID: r.ID, NoWorker: string(b)})
	}
	set := "no_worker = _data.no_worker"
	if s.dialect == Postgres {
		set = "no_worker = CAST(_data.no_worker AS jsonb)"
	}
	_, err := s.idb.NewUpdate().
		With("_data", s.idb.NewValues(&rows)).
		Model((*Instance)(nil)).
		TableExpr("_data").
		Set(set).
		Where("i.id = _data.instance_id").
		Exec(ctx)
	return wrap(err, "recording why no worker could take instances")
}
