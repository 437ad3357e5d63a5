package execution

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/tracing"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// This file traces a fire (docs/tracing.md): a "fire" span from the
// moment the wheel fired the instance to the batch that dispatched it, its
// child "dispatch" until the first task's frame went out, and a "task"
// span per task sent, from its dispatch frame to its end, whose context
// the frame carries to the worker (protocol.Task.Traceparent). The
// instance keeps its dispatch span's traceparent (instances.trace_parent),
// so tasks created later (map subtasks, retries, another owner's) join the
// same trace. Everything here runs only when the tracer is on: off, the
// hot path pays a branch per batch and per task sent.

// fireSpans are the spans of a batch's fires, ended once it committed.
type fireSpans struct {
	ids      []int64
	fire     []trace.Span
	dispatch []trace.Span
}

// startFires starts the spans of the batch's fires (WAITING → DISPATCHED)
// and records each dispatch span's traceparent with the transition.
func (a *Actor) startFires(c *changes, now time.Time) *fireSpans {
	var fs *fireSpans
	for i := range c.inst {
		tr := &c.inst[i]
		if tr.From != db.StatusWaiting || tr.To != db.StatusDispatched {
			continue
		}
		it := a.st.instances[tr.ID]
		if it == nil {
			continue
		}
		if fs == nil {
			fs = &fireSpans{}
		}
		fired := now
		if tr.ActualTriggerAt != nil {
			fired = *tr.ActualTriggerAt
		}
		// A fire the API or a workflow traced already is a child of
		// that span.
		parent := tracing.WithTraceparent(context.Background(), it.TraceParent)
		attrs := trace.WithAttributes(
			attribute.String("jobwheel.app", a.st.name),
			attribute.Int64("jobwheel.job.id", it.JobID),
			attribute.Int64("jobwheel.instance.id", it.ID),
			attribute.Int("jobwheel.instance.attempt", it.Attempt),
			attribute.String("jobwheel.trigger.type", it.TriggerType),
		)
		ctx, fire := a.deps.Tracer.Start(parent, "fire "+it.job.Name, trace.WithTimestamp(fired), attrs)
		fire.SetAttributes(attribute.String("jobwheel.trigger.at", it.TriggerAt.UTC().Format(time.RFC3339Nano)))
		ctx, dispatch := a.deps.Tracer.Start(ctx, "dispatch", trace.WithTimestamp(now), attrs)
		if dispatch.SpanContext().IsSampled() {
			// Only a recorded trace is worth a link and children.
			tp := tracing.Traceparent(ctx)
			tr.TraceParent = &tp
			it.TraceParent = tp
		}
		fs.ids = append(fs.ids, tr.ID)
		fs.fire = append(fs.fire, fire)
		fs.dispatch = append(fs.dispatch, dispatch)
	}
	return fs
}

// endFires ends the fire spans once the batch is durable (err nil) or
// failed; dispatch spans end when their first frames went out
// (endDispatches).
func (fs *fireSpans) endFires(err error, lost map[int64]bool) {
	if fs == nil {
		return
	}
	for i, span := range fs.fire {
		switch {
		case err != nil:
			span.SetStatus(codes.Error, "writing the batch failed: "+err.Error())
		case lost[fs.ids[i]]:
			span.SetStatus(codes.Error, "the instance moved meanwhile (stopped, or another owner)")
		}
		span.End()
		if err != nil || lost[fs.ids[i]] {
			fs.dispatch[i].End()
		}
	}
}

func (fs *fireSpans) endDispatches(err error, lost map[int64]bool) {
	if fs == nil || err != nil {
		return
	}
	for i, span := range fs.dispatch {
		if !lost[fs.ids[i]] {
			span.End()
		}
	}
}

// startTask starts the span of a task being sent and puts its context in
// the task's frame.
func (a *Actor) startTask(t *task, worker string, spec *protocol.Task) {
	if t.span != nil {
		t.span.End() // sent again (a retry of the same task)
	}
	ctx := tracing.WithTraceparent(context.Background(), t.inst.TraceParent)
	ctx, span := a.deps.Tracer.Start(ctx, "task "+t.Name, trace.WithSpanKind(trace.SpanKindProducer), trace.WithAttributes(
		attribute.String("jobwheel.app", a.st.name),
		attribute.Int64("jobwheel.job.id", t.inst.JobID),
		attribute.Int64("jobwheel.instance.id", t.inst.ID),
		attribute.Int64("jobwheel.task.id", t.ID),
		attribute.String("jobwheel.task.kind", t.Kind),
		attribute.String("jobwheel.worker.id", worker),
	))
	t.span = span
	spec.Traceparent = tracing.Traceparent(ctx)
}

// endedSpan is a task span to end once the batch that ended the task is
// durable.
type endedSpan struct {
	span   trace.Span
	status string
	result string
}

func endTaskSpans(list []endedSpan) {
	for _, e := range list {
		e.span.SetAttributes(attribute.String("jobwheel.task.status", e.status))
		if e.status != db.StatusSucceeded {
			e.span.SetStatus(codes.Error, e.status+": "+e.result)
		}
		e.span.End()
	}
}
