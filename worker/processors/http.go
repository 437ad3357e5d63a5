package processors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobwheel/jobwheel/worker"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// redactURL drops a URL's user information and query (which may hold
// keys) for span attributes.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// HTTPRequest is the processor field of an HTTP job, as JSON:
//
//	{"method":"POST","url":"https://…","headers":{"X-Token":"…"},"body":"…","expectStatus":200,"timeoutMs":5000}
type HTTPRequest struct {
	// Method defaults to GET.
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
	// ExpectStatus is the status that means success; 0 means any 2xx.
	ExpectStatus int `json:"expectStatus"`
	// TimeoutMs bounds the request; 0 leaves only the task's own deadline.
	TimeoutMs int `json:"timeoutMs"`
}

// HTTP sends the job's request (an HTTPRequest in TaskContext.ProcessorSpec)
// and succeeds when the response status is the expected one, with
// "HTTP <status>: <body>" as the result. It logs the request line and the
// response status.
type HTTP struct {
	// Client sends the requests (default: a client without a timeout of its
	// own: the task's context and TimeoutMs bound each request).
	Client *http.Client
	// MaxBody bounds how much of the response body goes into the result
	// (default 16 KiB).
	MaxBody int
	// TracerProvider records a client span for the request of a traced
	// run; nil records none. Either way a traced run's request carries a
	// `traceparent` header (the client span's, else the processor's).
	TracerProvider trace.TracerProvider
}

var errRequestTimeout = errors.New("request timeout")

// Process sends the request. See HTTP.
func (h *HTTP) Process(ctx worker.TaskContext) (worker.Result, error) {
	spec, err := ParseHTTPRequest(ctx.ProcessorSpec())
	if err != nil {
		return worker.Result{}, err
	}
	rctx := context.Context(ctx)
	if spec.TimeoutMs > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeoutCause(ctx, time.Duration(spec.TimeoutMs)*time.Millisecond, errRequestTimeout)
		defer cancel()
	}
	var body io.Reader
	if spec.Body != "" {
		body = strings.NewReader(spec.Body)
	}
	traced := trace.SpanContextFromContext(rctx).IsValid()
	var span trace.Span
	if traced && h.TracerProvider != nil {
		rctx, span = h.TracerProvider.Tracer("github.com/jobwheel/jobwheel/worker/processors").Start(rctx, "HTTP "+spec.Method,
			trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
				attribute.String("http.request.method", spec.Method), attribute.String("url.full", redactURL(spec.URL))))
		defer span.End()
	}
	req, err := http.NewRequestWithContext(rctx, spec.Method, spec.URL, body)
	if err != nil {
		return worker.Result{}, fmt.Errorf("building the request: %w", err)
	}
	if traced {
		// Before the job's own headers, which may set their own.
		propagation.TraceContext{}.Inject(rctx, propagation.HeaderCarrier(req.Header))
	}
	for k, v := range spec.Headers {
		if strings.EqualFold(k, "Host") {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	line := spec.Method + " " + spec.URL
	log := ctx.Logger()
	log.Info(line)
	client := h.Client
	if client == nil {
		client = http.DefaultClient
	}
	start := time.Now()
	// failed explains an error of the exchange, saying a timeout is one.
	failed := func(stage string, err error) error {
		switch {
		case errors.Is(context.Cause(rctx), errRequestTimeout):
			return fmt.Errorf("%s: timed out after %dms (timeoutMs)", line, spec.TimeoutMs)
		case ctx.Err() != nil:
			return fmt.Errorf("%s: %w", line, context.Cause(ctx))
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // it repeats the method and URL
		}
		return fmt.Errorf("%s: %s: %w", line, stage, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		err = failed("request failed", err)
		if span != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		return worker.Result{}, err
	}
	if span != nil {
		span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
	}
	defer resp.Body.Close()
	maxBody := h.MaxBody
	if maxBody <= 0 {
		maxBody = 16 << 10
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, int64(maxBody)+1))
	if err != nil {
		return worker.Result{}, failed("reading the response", err)
	}
	text := protocol.Truncate(string(b), maxBody)
	took := time.Since(start).Round(time.Millisecond)
	ok := resp.StatusCode/100 == 2
	want := "2xx"
	if spec.ExpectStatus != 0 {
		ok = resp.StatusCode == spec.ExpectStatus
		want = strconv.Itoa(spec.ExpectStatus)
	}
	if !ok {
		if span != nil {
			span.SetStatus(codes.Error, "HTTP "+resp.Status)
		}
		log.Error("HTTP "+resp.Status, "took", took, "expected", want)
		return worker.Result{}, fmt.Errorf("%s: HTTP %d, expected %s: %s", line, resp.StatusCode, want, text)
	}
	log.Info("HTTP "+resp.Status, "took", took)
	return worker.Result{Message: fmt.Sprintf("HTTP %d: %s", resp.StatusCode, text)}, nil
}

// ParseHTTPRequest decodes and checks an HTTP job's processor field,
// filling in defaults. Unknown fields are errors: a misspelt
// "expectedStatus" would otherwise be silently ignored.
func ParseHTTPRequest(spec string) (HTTPRequest, error) {
	var r HTTPRequest
	dec := json.NewDecoder(strings.NewReader(spec))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("the HTTP processor must be a JSON object {method, url, headers, body, expectStatus, timeoutMs}: %w", err)
	}
	r.Method = strings.ToUpper(strings.TrimSpace(r.Method))
	if r.Method == "" {
		r.Method = http.MethodGet
	}
	u, err := url.Parse(r.URL)
	switch {
	case r.URL == "":
		return r, errors.New("the HTTP processor has no url")
	case err != nil:
		return r, fmt.Errorf("the HTTP processor's url: %w", err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return r, fmt.Errorf("the HTTP processor's url %q must be an absolute http:// or https:// URL", r.URL)
	case r.ExpectStatus != 0 && (r.ExpectStatus < 100 || r.ExpectStatus > 599):
		return r, fmt.Errorf("the HTTP processor's expectStatus %d is not an HTTP status", r.ExpectStatus)
	case r.TimeoutMs < 0:
		return r, fmt.Errorf("the HTTP processor's timeoutMs %d is negative", r.TimeoutMs)
	}
	return r, nil
}
