package e2e

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/graph/client"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// TestMetrics scrapes /metrics of a real server (PostgreSQL) doing work
// with a real agent: a fixed-rate job that succeeds, a run that fails, API
// calls (one refused) and an open websocket,
// and checks each figure appears with its app label and nothing more
// specific.
func TestMetrics(t *testing.T) {
	t.Parallel()
	srv := harness.StartServer(t, harness.ServerOptions{DatabaseURL: dbtest.NewSchema(t)})
	admin := srv.Client()
	_, secret, err := admin.CreateApp("metered")
	if err != nil {
		t.Fatal(err)
	}
	harness.StartAgent(t, harness.AgentOptions{Servers: []string{srv.URL}, App: "metered", Secret: secret, Slots: 3})
	if _, err := admin.WaitWorkers("metered", 1, settle); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CreateJob(map[string]any{"app": "metered", "name": "tick", "scheduleType": "FIXED_RATE",
		"scheduleExpression": "1s", "processorType": "SHELL", "processor": "true"}); err != nil {
		t.Fatal(err)
	}
	failing, err := admin.CreateJob(map[string]any{"app": "metered", "name": "fails", "scheduleType": "API",
		"processorType": "SHELL", "processor": "exit 3"})
	if err != nil {
		t.Fatal(err)
	}
	in, err := admin.RunJob(failing, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.WaitInstance(in, settle, "FAILED"); err != nil {
		t.Fatal(err)
	}
	// A refused call: a job of an app that does not exist.
	if _, err := admin.CreateJob(map[string]any{"app": "no-such-app", "name": "x", "scheduleType": "API",
		"processorType": "SHELL", "processor": "true"}); err == nil {
		t.Fatal("createJob in a missing app succeeded")
	}
	ctx, cancel := context.WithTimeout(context.Background(), settle)
	defer cancel()
	ws, err := client.Dial(ctx, admin.URL, client.Options{Token: admin.Token})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()

	app := map[string]string{"app": "metered"}
	want := []struct {
		name   string
		labels map[string]string
		ok     func(float64) bool
	}{
		{"jobwheel_instances_finished_total", map[string]string{"app": "metered", "status": "SUCCEEDED", "reason": ""}, positive},
		{"jobwheel_instances_finished_total", map[string]string{"app": "metered", "status": "FAILED", "reason": "FAILED"}, positive},
		{"jobwheel_trigger_lateness_seconds_count", app, positive},
		{"jobwheel_fire_to_start_seconds_count", app, positive},
		{"jobwheel_queue_waiting_instances", app, nonNegative},
		{"jobwheel_queue_waiting_tasks", app, nonNegative},
		{"jobwheel_workers_connected", app, func(v float64) bool { return v == 1 }},
		{"jobwheel_worker_slots", app, func(v float64) bool { return v == 3 }},
		{"jobwheel_worker_slots_free", app, func(v float64) bool { return v >= 0 && v <= 3 }},
		{"jobwheel_apps_owned", nil, positive},
		{"jobwheel_lease_acquisitions_total", nil, positive},
		{"jobwheel_db_query_seconds_count", map[string]string{"operation": "SELECT"}, positive},
		{"jobwheel_db_query_seconds_count", map[string]string{"operation": "UPDATE"}, positive},
		{"jobwheel_graphql_requests_total", map[string]string{"type": "mutation", "operation": "createJob", "code": "OK"}, func(v float64) bool { return v >= 2 }},
		{"jobwheel_graphql_requests_total", map[string]string{"type": "mutation", "operation": "createJob", "code": "BAD_INPUT"}, positive},
		{"jobwheel_graphql_requests_total", map[string]string{"type": "query", "operation": "instance", "code": "OK"}, positive},
		{"jobwheel_websocket_subscribers", nil, func(v float64) bool { return v == 1 }},
		{"go_goroutines", nil, positive},
	}
	var last []series
	missing := func() []string {
		var out []string
		for _, w := range want {
			found := false
			for _, s := range last {
				if s.match(w.name, w.labels) && w.ok(s.value) {
					found = true
					break
				}
			}
			if !found {
				out = append(out, w.name+formatLabels(w.labels))
			}
		}
		return out
	}
	// The collector reads the database every 5 s, 2 s behind.
	if !testkit.Poll(settle, func() bool {
		last, err = scrape(srv.URL + "/metrics")
		return err == nil && len(missing()) == 0
	}) {
		var got []string
		for _, s := range last {
			if strings.HasPrefix(s.name, "jobwheel_") {
				got = append(got, s.name+formatLabels(s.labels)+" "+strconv.FormatFloat(s.value, 'g', -1, 64))
			}
		}
		t.Fatalf("after %v, /metrics lacks or has wrong values for %v (last error %v); it has:\n%s",
			settle, missing(), err, strings.Join(got, "\n"))
	}
	// Labels stay bounded: nothing is labelled by job or instance.
	for _, s := range last {
		for k := range s.labels {
			if k == "job" || k == "instance" || k == "job_id" || k == "instance_id" {
				t.Errorf("series %s has a per-job or per-instance label", s.name+formatLabels(s.labels))
			}
		}
	}
}

func positive(v float64) bool    { return v > 0 }
func nonNegative(v float64) bool { return v >= 0 }

// series is one sample of the text exposition format.
type series struct {
	name   string
	labels map[string]string
	value  float64
}

func (s series) match(name string, labels map[string]string) bool {
	if s.name != name {
		return false
	}
	for k, v := range labels {
		if s.labels[k] != v {
			return false
		}
	}
	return true
}

func formatLabels(l map[string]string) string {
	if len(l) == 0 {
		return ""
	}
	var parts []string
	for k, v := range l {
		parts = append(parts, k+"="+strconv.Quote(v))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// scrape reads a Prometheus text exposition (label values here hold no
// escaped quotes or commas).
func scrape(url string) ([]series, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return nil, &scrapeError{resp.Status + ": " + string(b)}
	}
	var out []series
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s := series{labels: map[string]string{}}
		var rest string
		if i := strings.IndexByte(line, '{'); i >= 0 {
			j := strings.LastIndexByte(line, '}')
			s.name = line[:i]
			for _, kv := range strings.Split(line[i+1:j], ",") {
				if k, v, ok := strings.Cut(kv, "="); ok {
					s.labels[k] = strings.Trim(v, `"`)
				}
			}
			rest = strings.TrimSpace(line[j+1:])
		} else {
			s.name, rest, _ = strings.Cut(line, " ")
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		if s.value, err = strconv.ParseFloat(f[0], 64); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

type scrapeError struct{ msg string }

func (e *scrapeError) Error() string { return "scraping /metrics: " + e.msg }
