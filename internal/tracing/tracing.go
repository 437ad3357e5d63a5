// Package tracing exports OpenTelemetry traces over OTLP/HTTP for the
// server and the agent (docs/tracing.md). It is off unless an endpoint is
// configured, and then code on hot paths pays one branch: a Tracer's zero
// value is off, and instrumented code asks On before it builds a span.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"
)

// Config configures tracing; the zero value is off.
type Config struct {
	// Endpoint is the collector's OTLP/HTTP base URL, such as
	// http://127.0.0.1:4318 (spans go to Endpoint + /v1/traces); "" is off.
	Endpoint string
	// Sample is the fraction of new traces recorded, from 0 to 1. A span
	// whose parent came from elsewhere (the server, for a worker) follows
	// the parent's decision.
	Sample float64
	// Service is the service.name of the spans (jobwheel-server,
	// jobwheel-agent).
	Service string
	// Version is the service.version.
	Version string
}

// CheckEndpoint says why endpoint is not an OTLP/HTTP base URL, or nil.
func CheckEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("not an http:// or https:// URL such as http://127.0.0.1:4318")
	}
	return nil
}

// Provider exports the spans of its tracers. Stop flushes what is
// buffered.
type Provider struct {
	sdk *sdktrace.TracerProvider
}

// New returns a provider exporting to cfg.Endpoint; nil when tracing is
// off.
func New(cfg Config) (*Provider, error) {
	if cfg.Endpoint == "" {
		return nil, nil
	}
	if err := CheckEndpoint(cfg.Endpoint); err != nil {
		return nil, fmt.Errorf("tracing endpoint %q: %w", cfg.Endpoint, err)
	}
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(strings.TrimRight(cfg.Endpoint, "/")+"/v1/traces"))
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	res := resource.NewSchemaless(semconv.ServiceName(cfg.Service), semconv.ServiceVersion(cfg.Version))
	sdk := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(time.Second)),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(cfg.Sample))),
	)
	return &Provider{sdk: sdk}, nil
}

// TracerProvider is the OpenTelemetry provider (for the worker SDK); nil
// when p is.
func (p *Provider) TracerProvider() trace.TracerProvider {
	if p == nil {
		return nil
	}
	return p.sdk
}

// Tracer returns a tracer named for the instrumented package; off when p
// is nil.
func (p *Provider) Tracer(name string) Tracer {
	if p == nil {
		return Tracer{}
	}
	return Tracer{t: p.sdk.Tracer(name)}
}

// Start does nothing: the provider's exporter runs from New on.
func (p *Provider) Start(context.Context) error { return nil }

// Stop exports the spans still buffered (for at most 5 s) and stops.
func (p *Provider) Stop() {
	if p == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.sdk.Shutdown(ctx)
}

// Started is closed: there is nothing to wait for.
func (p *Provider) Started() <-chan struct{} { return closed }

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Tracer starts spans, or is off (its zero value).
type Tracer struct {
	t trace.Tracer
}

// On reports whether spans are recorded: instrumented code builds a span
// only then, so that tracing off costs a branch and no allocation.
func (t Tracer) On() bool { return t.t != nil }

// Start starts a span (see trace.Tracer); call it only when On.
func (t Tracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	return t.t.Start(ctx, name, opts...)
}

var propagator = propagation.TraceContext{}

// Traceparent returns the W3C traceparent of ctx's span, "" if there is
// none.
func Traceparent(ctx context.Context) string {
	c := propagation.MapCarrier{}
	propagator.Inject(ctx, c)
	return c["traceparent"]
}

// WithTraceparent returns ctx with the remote span a W3C traceparent
// names as its parent; ctx itself when traceparent is "" or malformed.
func WithTraceparent(ctx context.Context, traceparent string) context.Context {
	if traceparent == "" {
		return ctx
	}
	return propagator.Extract(ctx, propagation.MapCarrier{"traceparent": traceparent})
}

// TraceID returns the trace id a traceparent names, "" if none.
func TraceID(traceparent string) string {
	sc := trace.SpanContextFromContext(WithTraceparent(context.Background(), traceparent))
	if !sc.IsValid() {
		return ""
	}
	return sc.TraceID().String()
}
