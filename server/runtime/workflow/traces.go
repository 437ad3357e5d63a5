package workflow

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/tracing"
)

// A traced workflow instance (docs/tracing.md) has a span from its start,
// kept as its trace_parent: each node's transitions are spans under it, and
// so are its job instances' fires (package execution) and its nested
// instances. Spans are made only when the tracer is on.

// traceStart starts a workflow instance's span (under its parent
// instance's, for a nested one) and records it with the instance.
func (e *Engine) traceStart(ctx context.Context, tx *db.Store, r *db.WorkflowInstance, now time.Time) error {
	parent := tracing.WithTraceparent(context.Background(), r.TraceParent)
	sctx, span := e.deps.Tracer.Start(parent, "workflow instance", trace.WithTimestamp(now), trace.WithAttributes(
		attribute.Int64("jobwheel.app.id", r.AppID),
		attribute.Int64("jobwheel.workflow.id", r.WorkflowID),
		attribute.Int64("jobwheel.workflow_instance.id", r.ID),
		attribute.Int("jobwheel.workflow.version", r.Version),
		attribute.String("jobwheel.trigger.type", r.TriggerType),
	))
	// The instance may run for days: its span marks the start, and the
	// nodes' spans follow under it as they move.
	span.End(trace.WithTimestamp(now))
	if !span.SpanContext().IsSampled() {
		return nil
	}
	r.TraceParent = tracing.Traceparent(sctx)
	return tx.WorkflowInstanceSetTraceParent(ctx, r.ID, r.TraceParent)
}

// traceMoves records a committed decision's node transitions: a span per
// node that moved (from the node's start to now when it ended).
func (e *Engine) traceMoves(v *view, p *plan, now time.Time) {
	if v.wi.TraceParent == "" || len(p.moves) == 0 {
		return
	}
	parent := tracing.WithTraceparent(context.Background(), v.wi.TraceParent)
	byID := make(map[int64]*db.WorkflowNodeRun, len(v.nodes))
	for _, n := range v.nodes {
		byID[n.ID] = n
	}
	for _, m := range p.moves {
		n := byID[m.ID]
		if n == nil {
			continue
		}
		start := now
		if db.IsNodeFinal(m.To) && n.StartedAt != nil {
			start = *n.StartedAt
		}
		attrs := []attribute.KeyValue{
			attribute.Int64("jobwheel.workflow_instance.id", v.wi.ID),
			attribute.String("jobwheel.workflow.node", n.NodeKey),
			attribute.String("jobwheel.workflow.node.from", n.Status),
			attribute.String("jobwheel.workflow.node.to", m.To),
		}
		if m.InstanceID != nil {
			attrs = append(attrs, attribute.Int64("jobwheel.instance.id", *m.InstanceID))
		}
		_, span := e.deps.Tracer.Start(parent, "node "+n.NodeKey+" "+m.To, trace.WithTimestamp(start), trace.WithAttributes(attrs...))
		if m.To == db.NodeFailed {
			span.SetStatus(codes.Error, deref(m.Result))
		}
		span.End(trace.WithTimestamp(now))
	}
}
