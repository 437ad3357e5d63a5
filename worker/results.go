package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"time"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

// Results are the results a POST or REDUCE task sees, in task id order:
// each finished task's outcome, or an error that ends the sequence (the
// server could not be asked, the task was stopped). A reduce over
// millions of subtasks gets them a page at a time from the server, never
// all in memory at once.
type Results = iter.Seq2[TaskResult, error]

// StreamReducer is the reduce step of MAP_REDUCE jobs for any number of
// subtasks: ReduceStream runs once, after every subtask ended, and reads
// their results as a stream. A processor that implements it is used
// instead of MapReduceProcessor's Reduce, which gets every result in one
// slice.
type StreamReducer interface {
	Processor
	ReduceStream(ctx TaskContext, results Results) (Result, error)
}

// resultsPage is how many results one request asks for.
const resultsPage = protocol.MaxBatch

// results streams the task's results: those the dispatch carried, or
// page after page from the server when it said ResultsPaged.
func (c *taskContext) results() Results {
	return func(yield func(TaskResult, error) bool) {
		if !c.task.ResultsPaged {
			ResultsFrom(c.task.Results)(yield)
			return
		}
		after := int64(0)
		for {
			page, more, err := c.w.resultsPage(c, protocol.Results{InstanceID: c.task.InstanceID, TaskID: c.task.TaskID,
				After: after, Limit: resultsPage})
			if err != nil {
				yield(TaskResult{}, err)
				return
			}
			for _, r := range page {
				if !yield(r, nil) {
					return
				}
				after = r.TaskID
			}
			if !more || len(page) == 0 {
				return
			}
		}
	}
}

// resultsPage asks the server for one page, waiting for the answer, the
// task's end, or Config.MapTimeout, whichever comes first. Connections
// may come and go meanwhile: the request is sent again on the next.
func (w *Worker) resultsPage(c *taskContext, r protocol.Results) ([]TaskResult, bool, error) {
	p := &pageRequest{r: r, done: make(chan pageAnswer, 1)}
	if err := w.out.addPage(p); err != nil {
		return nil, false, fmt.Errorf("reading results: %w", err)
	}
	timer := time.NewTimer(w.cfg.MapTimeout)
	defer timer.Stop()
	select {
	case a := <-p.done:
		return a.results, a.more, a.err
	case <-c.Done():
		w.out.abandonPage(p)
		return nil, false, fmt.Errorf("reading results: %w", context.Cause(c))
	case <-timer.C:
		w.out.abandonPage(p)
		return nil, false, fmt.Errorf("reading results: the server did not answer within %s", w.cfg.MapTimeout)
	}
}

// collect reads every result into one slice.
func collect(results Results) ([]TaskResult, error) {
	var out []TaskResult
	for r, err := range results {
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// MapOf emits subtasks of a MAP or MAP_REDUCE instance from a typed list
// (see TaskContext.Map); each item is its subtask's payload as JSON, which
// the subtask decodes with PayloadOf.
func MapOf[T any](ctx TaskContext, items []T, name string) error {
	subtasks := make([]any, len(items))
	for i := range items {
		subtasks[i] = items[i]
	}
	return ctx.Map(subtasks, name)
}

// PayloadOf decodes a MAP subtask's payload into a T.
func PayloadOf[T any](ctx TaskContext) (T, error) {
	var v T
	err := ctx.DecodePayload(&v)
	return v, err
}

// ResultOf decodes a task result's text as JSON into a T, for processors
// whose subtasks return JSON (Result.Message); a failed task's result is
// its error text, so it is refused here.
func ResultOf[T any](r TaskResult) (T, error) {
	var v T
	if !r.Success {
		return v, fmt.Errorf("task %d failed: %s", r.TaskID, r.Result)
	}
	if err := json.Unmarshal([]byte(r.Result), &v); err != nil {
		return v, fmt.Errorf("decoding the result of task %d: %w", r.TaskID, err)
	}
	return v, nil
}

// ResultsFrom streams a list of results, for calling a StreamReducer in a
// test.
func ResultsFrom(list []TaskResult) Results {
	return func(yield func(TaskResult, error) bool) {
		for _, r := range list {
			if !yield(r, nil) {
				return
			}
		}
	}
}
