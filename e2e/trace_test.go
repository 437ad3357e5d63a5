package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// jaegerSpan is a span as Jaeger's query API returns it.
type jaegerSpan struct {
	TraceID       string `json:"traceID"`
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	ProcessID     string `json:"processID"`
	References    []struct {
		RefType string `json:"refType"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
}

type jaegerTrace struct {
	Spans     []jaegerSpan `json:"spans"`
	Processes map[string]struct {
		ServiceName string `json:"serviceName"`
	} `json:"processes"`
}

// TestTraceFromFireToHTTPCall runs an HTTP job that calls a test server,
// with the server and the agent exporting to a real Jaeger on loopback,
// then reads the trace back from Jaeger's query API: the API call that
// ran the job, the fire, its dispatch, the task, the agent's processor and
// its HTTP request are one trace, each the child of the one before, from
// the server and the agent as their services; the test server received
// the HTTP span's traceparent; the instance names the trace (traceId) and
// the console's trace link template is served. Then a workflow running the
// job: its span, its node's transitions and the job's fire are one trace.
func TestTraceFromFireToHTTPCall(t *testing.T) {
	t.Parallel()
	jaeger := harness.StartJaeger(t)
	var mu sync.Mutex
	var received []string
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		received = append(received, r.Header.Get("traceparent"))
		mu.Unlock()
		fmt.Fprintln(w, "settled")
	}))
	defer target.Close()

	srv := harness.StartServer(t, harness.ServerOptions{Env: []string{
		"JOBWHEEL_OTLP_ENDPOINT=" + jaeger.OTLP,
		"JOBWHEEL_TRACE_URL=" + jaeger.Query + "/trace/{traceId}",
	}})
	c := srv.Client()
	_, secret, err := c.CreateApp("traced")
	if err != nil {
		t.Fatal(err)
	}
	harness.StartAgent(t, harness.AgentOptions{Servers: []string{srv.URL}, App: "traced", Secret: secret, Name: "tracer",
		Env: []string{"JOBWHEEL_OTLP_ENDPOINT=" + jaeger.OTLP}})
	if _, err := c.WaitWorkers("traced", 1, connect); err != nil {
		t.Fatal(err)
	}
	spec, _ := json.Marshal(map[string]any{"method": "GET", "url": target.URL + "/settle"})
	jobID, err := c.CreateJob(map[string]any{"app": "traced", "name": "settle", "scheduleType": "API",
		"processorType": "HTTP", "processor": string(spec)})
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.RunJob(jobID, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitInstance(id, time.Minute, "SUCCEEDED"); err != nil {
		t.Fatalf("%v\nserver output:\n%s", err, srv.Output())
	}
	var got struct {
		Instance         struct{ TraceID *string }
		TraceURLTemplate *string
	}
	if err := c.Do(`query($id: ID!) { instance(id: $id) { traceId } traceUrlTemplate }`, map[string]any{"id": id}, &got); err != nil {
		t.Fatal(err)
	}
	if got.Instance.TraceID == nil || len(*got.Instance.TraceID) != 32 {
		t.Fatalf("the instance's traceId is %v; want the 32-hex-digit id of its trace", got.Instance.TraceID)
	}
	if got.TraceURLTemplate == nil || *got.TraceURLTemplate != jaeger.Query+"/trace/{traceId}" {
		t.Errorf("traceUrlTemplate = %v", got.TraceURLTemplate)
	}
	traceID := *got.Instance.TraceID
	mu.Lock()
	headers := append([]string(nil), received...)
	mu.Unlock()
	if len(headers) != 1 || !strings.HasPrefix(headers[0], "00-"+traceID+"-") {
		t.Fatalf("the called server received traceparent %q; want one in trace %s", headers, traceID)
	}

	// The spans arrive in batches from two processes: wait until the
	// trace has all six.
	want := []string{"graphql mutation runJob", "fire settle", "dispatch", "task ROOT", "process ROOT", "HTTP GET"}
	var tr jaegerTrace
	byName := map[string]jaegerSpan{}
	if !testkit.Poll(time.Minute, func() bool {
		tr = readTrace(t, jaeger.Query, traceID)
		byName = map[string]jaegerSpan{}
		for _, s := range tr.Spans {
			byName[s.OperationName] = s
		}
		for _, name := range want {
			if _, ok := byName[name]; !ok {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("trace %s in Jaeger has spans %v; want %v\nserver output:\n%s", traceID, names(tr.Spans), want, srv.Output())
	}
	for i, name := range want {
		s := byName[name]
		if i == 0 {
			if len(s.References) != 0 {
				t.Errorf("%q has a parent: %+v", name, s.References)
			}
			continue
		}
		parent := byName[want[i-1]]
		if len(s.References) != 1 || s.References[0].RefType != "CHILD_OF" || s.References[0].SpanID != parent.SpanID {
			t.Errorf("%q's parent is %+v; want %q (%s)", name, s.References, want[i-1], parent.SpanID)
		}
	}
	for name, service := range map[string]string{"fire settle": "jobwheel-server", "task ROOT": "jobwheel-server",
		"process ROOT": "jobwheel-agent", "HTTP GET": "jobwheel-agent"} {
		if got := tr.Processes[byName[name].ProcessID].ServiceName; got != service {
			t.Errorf("%q came from %q; want %q", name, got, service)
		}
	}
	if parent := strings.Split(headers[0], "-")[2]; parent != byName["HTTP GET"].SpanID {
		t.Errorf("the called server's parent span is %s; want the HTTP span %s", parent, byName["HTTP GET"].SpanID)
	}

	// A workflow run is one trace too: its span, a span per node
	// transition, and its job instance's fire under it.
	wid, err := c.CreateWorkflow(map[string]any{"app": "traced", "name": "nightly", "scheduleType": "API",
		"nodes": []map[string]any{{"key": "pay", "type": "JOB", "jobId": jobID}}, "edges": []map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	wi, err := c.RunWorkflow(wid, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitWorkflowInstance(wi, time.Minute, "SUCCEEDED"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	last := received[len(received)-1]
	mu.Unlock()
	wfTrace := strings.Split(last, "-")[1]
	wantWF := []string{"graphql mutation runWorkflow", "workflow instance", "node pay RUNNING", "node pay SUCCEEDED", "fire settle", "HTTP GET"}
	if !testkit.Poll(time.Minute, func() bool {
		tr = readTrace(t, jaeger.Query, wfTrace)
		byName = map[string]jaegerSpan{}
		for _, s := range tr.Spans {
			byName[s.OperationName] = s
		}
		for _, name := range wantWF {
			if _, ok := byName[name]; !ok {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("the workflow's trace %s has spans %v; want at least %v", wfTrace, names(tr.Spans), wantWF)
	}
	for child, parent := range map[string]string{"workflow instance": "graphql mutation runWorkflow",
		"node pay RUNNING": "workflow instance", "node pay SUCCEEDED": "workflow instance", "fire settle": "workflow instance"} {
		s := byName[child]
		if len(s.References) != 1 || s.References[0].SpanID != byName[parent].SpanID {
			t.Errorf("%q's parent is %+v; want %q", child, s.References, parent)
		}
	}
}

func readTrace(t *testing.T, query, traceID string) jaegerTrace {
	t.Helper()
	resp, err := http.Get(query + "/api/traces/" + traceID)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Data []jaegerTrace `json:"data"`
	}
	if resp.StatusCode != http.StatusOK {
		return jaegerTrace{} // not there yet
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("reading Jaeger's answer: %v", err)
	}
	if len(body.Data) == 0 {
		return jaegerTrace{}
	}
	return body.Data[0]
}

func names(spans []jaegerSpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.OperationName)
	}
	return out
}
