package worker

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobwheel/jobwheel/worker/protocol"
)

// A traced task's dispatch carries the server's span for it
// (protocol.Task.Traceparent, docs/protocol.md): the processor runs under
// a span of its own, child of that one, which its TaskContext carries.

var traceContext = propagation.TraceContext{}

// startSpan returns ctx carrying the task's trace: the processor's span
// when Config.TracerProvider records spans, else the server's span (so
// calls the processor makes are traced under it all the same). A task
// without a valid traceparent is not traced (nil span).
func (w *Worker) startSpan(ctx context.Context, t *protocol.Task) (context.Context, trace.Span) {
	if t.Traceparent == "" {
		return ctx, nil
	}
	if !protocol.ValidTraceparent(t.Traceparent) {
		w.log.Debug("ignoring a task's malformed traceparent", "task", t.TaskID, "traceparent", t.Traceparent)
		return ctx, nil
	}
	ctx = traceContext.Extract(ctx, propagation.MapCarrier{"traceparent": t.Traceparent})
	if w.cfg.TracerProvider == nil {
		return ctx, nil
	}
	return w.cfg.TracerProvider.Tracer("github.com/jobwheel/jobwheel/worker").Start(ctx, "process "+t.Name,
		trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(
			attribute.String("jobwheel.worker.id", w.id),
			attribute.Int64("jobwheel.job.id", t.JobID),
			attribute.Int64("jobwheel.instance.id", t.InstanceID),
			attribute.Int64("jobwheel.task.id", t.TaskID),
			attribute.String("jobwheel.task.kind", t.Kind),
			attribute.String("jobwheel.processor.type", t.ProcessorType),
		))
}

// endSpan ends the processor's span with the task's final status.
func endSpan(span trace.Span, status, result string) {
	if span == nil {
		return
	}
	span.SetAttributes(attribute.String("jobwheel.task.status", status))
	if status != protocol.TaskSucceeded {
		span.SetStatus(codes.Error, status+": "+protocol.Truncate(result, 200))
	}
	span.End()
}

// traceparentOf is the W3C traceparent of ctx's span, "" if it has none.
func traceparentOf(ctx context.Context) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ""
	}
	c := propagation.MapCarrier{}
	traceContext.Inject(ctx, c)
	return c["traceparent"]
}
