package worker

import (
	"strconv"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

var quote = strconv.Quote

// Processor runs a task. Every execution mode calls Process for its main
// tasks: the one ROOT task of a STANDALONE instance, each BROADCAST task,
// the ROOT and every MAP task of MAP and MAP_REDUCE instances.
//
// A task's result is a summary shown in the console and given to
// post-process, reduce and downstream workflow nodes; its whole output is
// its log. A nil error makes the task SUCCEEDED with Result.Message as its
// result. An error makes it FAILED with the error's text as its result,
// followed on the next line by Result.Message if the processor returned
// one all the same (the script processors return the end of their output
// there). A stop or timeout decides over what the processor returned: the
// result is then "stopped: <reason>" or "timed out after <d>", again
// followed by Result.Message. A panic is recovered and fails the task.
// Processors must return when ctx is done (stopped, timed out or the
// worker shutting down).
type Processor interface {
	Process(ctx TaskContext) (Result, error)
}

// Func adapts a function to Processor.
type Func func(ctx TaskContext) (Result, error)

// Process calls f.
func (f Func) Process(ctx TaskContext) (Result, error) { return f(ctx) }

// BroadcastProcessor adds the once-per-instance hooks of BROADCAST jobs:
// PreProcess runs once before the broadcast (its failure fails the
// instance), PostProcess once after it with every worker's result. A plain
// Processor used for a BROADCAST job gets no-op hooks.
type BroadcastProcessor interface {
	Processor
	PreProcess(ctx TaskContext) error
	PostProcess(ctx TaskContext, results []TaskResult) (Result, error)
}

// MapReduceProcessor adds the reduce step of MAP_REDUCE jobs: Reduce runs
// once, after every subtask ended, with all their results. Process handles
// the ROOT task (which calls ctx.Map) and the MAP subtasks (tell them apart
// with ctx.IsRoot or ctx.TaskName).
type MapReduceProcessor interface {
	Processor
	Reduce(ctx TaskContext, results []TaskResult) (Result, error)
}

// Result is what a task gives back on success.
type Result struct {
	// Message is the task's result text, shown in the console and given to
	// post-process, reduce and downstream workflow nodes; returned with an
	// error, it follows the error's text (see Processor). Longer than
	// protocol.MaxResultBytes, the result is cut.
	Message string
}

// TaskResult is a finished task's outcome, as given to PostProcess and
// Reduce.
type TaskResult = protocol.TaskResult

// lookupLocked finds the processor of a task, or says why there is none;
// w.mu is held.
func (w *Worker) lookupLocked(t *protocol.Task) (Processor, string) {
	switch t.Kind {
	case protocol.KindRoot, protocol.KindPre, protocol.KindBroadcast, protocol.KindPost,
		protocol.KindMap, protocol.KindReduce:
	default:
		return nil, "unknown task kind " + quote(t.Kind)
	}
	if t.ProcessorType == "GO" {
		if p, ok := w.processors[t.Processor]; ok {
			return p, ""
		}
		return nil, "no GO processor named " + quote(t.Processor) + " is registered on worker " + w.id
	}
	if p, ok := w.types[t.ProcessorType]; ok {
		return p, ""
	}
	return nil, "processor type " + quote(t.ProcessorType) + " is not supported by worker " + w.id
}
