package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/coder/websocket"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/graph/client"
	"github.com/jobwheel/jobwheel/server/platform/live"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// bound is a generous bound on "this happens at all", never a speed check.
const bound = 30 * time.Second

func waitCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	t.Cleanup(cancel)
	return ctx
}

func TestWebsocketRefusesUnauthenticated(t *testing.T) {
	t.Parallel()
	api := newAPI(t, dbtest.Open(t, db.SQLite), apiOptions{})
	ctx := waitCtx(t)
	for _, tc := range []struct{ name, token string }{
		{"no token", ""},
		{"unknown token", "jwt_nope"},
		{"not a jobwheel token", "abc"},
	} {
		_, err := client.Dial(ctx, api.url, client.Options{Token: tc.token})
		var ce *client.CloseError
		if !errors.As(err, &ce) || ce.Code != 4403 || !strings.HasPrefix(ce.Reason, "UNAUTHENTICATED: ") {
			t.Fatalf("%s: got %v, want close 4403 UNAUTHENTICATED", tc.name, err)
		}
	}
	// A good token is accepted, and a subscription's own errors come in
	// the API's error shape.
	c, err := client.Dial(ctx, api.url, client.Options{Token: api.admin(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tc := range []struct{ query, code string }{
		{`subscription { instanceLogs(instanceId: "12345") { seq } }`, "NOT_FOUND"},
		{`subscription { instanceLogs(instanceId: "x") { seq } }`, "BAD_INPUT"},
		{`subscription { instanceUpdated(app: "nope") { id } }`, "NOT_FOUND"},
	} {
		s, err := c.Subscribe(ctx, tc.query, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Next(ctx)
		var errs client.Errors
		if !errors.As(err, &errs) || errs.Code() != tc.code {
			t.Fatalf("%s: got %v, want %s", tc.query, err, tc.code)
		}
	}
}

// TestWebsocketKeepAlive: graphql-transport-ws clients are pinged, and one
// that does not answer is disconnected.
func TestWebsocketKeepAlive(t *testing.T) {
	t.Parallel()
	ctx := waitCtx(t)
	d := dbtest.Open(t, db.SQLite)
	// Pinged every 500ms, a client that answers stays (it would have to
	// be a second late to be cut); one that never answers is cut.
	api := newAPI(t, d, apiOptions{pingInterval: 500 * time.Millisecond})
	token := api.admin(t)
	pings := make(chan struct{}, 100)
	c, err := client.Dial(ctx, api.url, client.Options{Token: token, OnPing: func() { pings <- struct{}{} }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := 0; i < 3; i++ {
		select {
		case <-pings:
		case <-ctx.Done():
			t.Fatalf("got %d pings, want 3", i)
		case <-c.Done():
			t.Fatalf("a client that answers pings was disconnected: %v", c.Err())
		}
	}
	quick := newAPI(t, d, apiOptions{pingInterval: 50 * time.Millisecond})
	silent, err := client.Dial(ctx, quick.url, client.Options{Token: token, NoPong: true})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-silent.Done():
	case <-ctx.Done():
		t.Fatal("a client that never answers pings was not disconnected")
	}
}

// fixture is an app with a job and an instance, and a viewer of the app.
type fixture struct {
	api        *testAPI
	admin      string
	viewer     string
	appID      int64
	jobID      int64
	instanceID int64
}

func newFixture(t *testing.T, d *db.DB, opts apiOptions) *fixture {
	t.Helper()
	api := newAPI(t, d, opts)
	f := &fixture{api: api, admin: api.admin(t)}
	f.appID = api.createApp(t, f.admin, "orders")
	f.viewer = api.createUser(t, f.admin, "viewer")
	api.setRole(t, f.admin, "orders", "viewer", "VIEWER")
	f.jobID = mustInt(t, api.createJob(t, f.admin, "orders", "echo"))
	worker := "w1" // the worker f.write writes as
	in := &db.Instance{AppID: f.appID, JobID: f.jobID, Status: db.StatusRunning, TriggerType: "API", TriggerAt: db.Now(), WorkerID: &worker}
	if err := d.InstanceCreate(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	f.instanceID = in.ID
	return f
}

// write stores lines "line from..to" the way a worker's batch is stored.
func (f *fixture) write(t *testing.T, from, to int) {
	t.Helper()
	var lines []protocol.LogLine
	for i := from; i <= to; i++ {
		lines = append(lines, protocol.LogLine{InstanceID: f.instanceID, Seq: int64(i), Time: time.Now(), Level: "INFO",
			Text: fmt.Sprintf("line %d", i)})
	}
	done := make(chan error, 1)
	f.api.logs.Logs(f.appID, "w1", &protocol.Logs{Lines: lines}, func(err error) { done <- err })
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

type logLine struct {
	Seq    int64
	Text   string
	Worker *string
}

// next reads one line of an instanceLogs subscription.
func next(t *testing.T, ctx context.Context, s *client.Sub) (logLine, error) {
	t.Helper()
	raw, err := s.Next(ctx)
	if err != nil {
		return logLine{}, err
	}
	var out struct{ InstanceLogs logLine }
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out.InstanceLogs, nil
}

// expect reads lines from..to, in order, each once.
func expect(t *testing.T, ctx context.Context, s *client.Sub, from, to int) {
	t.Helper()
	for i := from; i <= to; i++ {
		l, err := next(t, ctx, s)
		if err != nil {
			t.Fatalf("waiting for line %d: %v", i, err)
		}
		if l.Seq != int64(i) || l.Text != fmt.Sprintf("line %d", i) {
			t.Fatalf("got line %d %q, want %d", l.Seq, l.Text, i)
		}
	}
}

const logsSub = `subscription($id: ID!, $after: Int) { instanceLogs(instanceId: $id, afterSeq: $after) { seq text worker } }`

// TestInstanceLogsSubscription: the backlog, then live lines, in order and
// once each; after a disconnect, resubscribing with the last seq misses and
// repeats nothing; the stream completes once the instance has finished.
func TestInstanceLogsSubscription(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, apiOptions{})
		ctx := waitCtx(t)
		f.write(t, 1, 5)
		c, err := client.Dial(ctx, f.api.url, client.Options{Token: f.viewer})
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.Subscribe(ctx, logsSub, map[string]any{"id": f.instanceID})
		if err != nil {
			t.Fatal(err)
		}
		expect(t, ctx, s, 1, 5)
		f.write(t, 6, 12)
		expect(t, ctx, s, 6, 12)
		c.CloseNow()

		f.write(t, 13, 20) // while nobody listens
		c2, err := client.Dial(ctx, f.api.url, client.Options{Token: f.viewer})
		if err != nil {
			t.Fatal(err)
		}
		defer c2.Close()
		s2, err := c2.Subscribe(ctx, logsSub, map[string]any{"id": f.instanceID, "after": 12})
		if err != nil {
			t.Fatal(err)
		}
		expect(t, ctx, s2, 13, 20)
		f.write(t, 21, 1500) // more than a page
		expect(t, ctx, s2, 21, 1500)
		// A worker re-sending lines already stored adds nothing.
		f.write(t, 1490, 1500)
		if err := f.api.logs.Append(ctx, f.appID, f.instanceID, "INFO", "line 1501"); err != nil {
			t.Fatal(err)
		}
		expect(t, ctx, s2, 1501, 1501)
		if _, err := d.InstanceStop(ctx, f.instanceID, "STOPPED"); err != nil {
			t.Fatal(err)
		}
		if l, err := next(t, ctx, s2); !errors.Is(err, io.EOF) {
			t.Fatalf("after the instance finished: got %+v, %v; want the stream to complete", l, err)
		}
	})
}

// TestInstanceUpdatedSubscription: instance changes of an app arrive, with
// their related objects, and a job filter keeps other jobs' out.
func TestInstanceUpdatedSubscription(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, apiOptions{})
		ctx := waitCtx(t)
		other := f.api.createJob(t, f.admin, "orders", "other")
		c, err := client.Dial(ctx, f.api.url, client.Options{Token: f.viewer})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		const q = `subscription($app: String!, $job: ID) { instanceUpdated(app: $app, jobId: $job) { id status job { name } } }`
		all, err := c.Subscribe(ctx, q, map[string]any{"app": "orders"})
		if err != nil {
			t.Fatal(err)
		}
		onlyOther, err := c.Subscribe(ctx, q, map[string]any{"app": "orders", "job": other})
		if err != nil {
			t.Fatal(err)
		}
		type update struct {
			InstanceUpdated struct {
				ID     string
				Status string
				Job    struct{ Name string }
			}
		}
		// waitFor reads until instance id in status arrives. A subscription
		// starts with the instances that changed just before it (here the
		// fixture's), so others may come first; a job filter must keep
		// other jobs' instances out.
		waitFor := func(s *client.Sub, id, status, job string) {
			t.Helper()
			for {
				raw, err := s.Next(ctx)
				if err != nil {
					t.Fatalf("waiting for instance %s %s: %v", id, status, err)
				}
				var u update
				if err := json.Unmarshal(raw, &u); err != nil {
					t.Fatal(err)
				}
				if s == onlyOther && u.InstanceUpdated.Job.Name != "other" {
					t.Fatalf("the job filter let through %+v", u)
				}
				if u.InstanceUpdated.ID == id && u.InstanceUpdated.Status == status {
					if u.InstanceUpdated.Job.Name != job {
						t.Fatalf("update %+v: want job %s", u, job)
					}
					return
				}
			}
		}
		run := func(job any) string {
			var out struct{ RunJob struct{ ID string } }
			f.api.must(t, f.admin, `mutation($id: ID!) { runJob(id: $id, delayMs: 3600000) { id } }`, map[string]any{"id": job}, &out)
			return out.RunJob.ID
		}
		id := run(f.jobID)
		waitFor(all, id, "WAITING", "echo")
		f.api.must(t, f.admin, `mutation($id: ID!) { stopInstance(id: $id) { id } }`, map[string]any{"id": id}, nil)
		waitFor(all, id, "STOPPED", "echo")
		otherID := run(other)
		waitFor(onlyOther, otherID, "WAITING", "other")
		waitFor(all, otherID, "WAITING", "other")
		// A VIEWER may watch but not act.
		r := f.api.do(t, f.viewer, `mutation($id: ID!) { stopInstance(id: $id) { id } }`, map[string]any{"id": otherID}, nil)
		if r.code() != CodeForbidden {
			t.Fatalf("viewer stops an instance: %+v", r.Errors)
		}
	})
}

// TestSubscriptionEndsWhenTokenRevoked: a live subscription made with an
// API token ends with UNAUTHENTICATED once the token is revoked.
func TestSubscriptionEndsWhenTokenRevoked(t *testing.T) {
	t.Parallel()
	f := newFixture(t, dbtest.Open(t, db.SQLite), apiOptions{})
	ctx := waitCtx(t)
	var out struct {
		CreateApiToken struct {
			Token  struct{ ID string }
			Secret string
		}
	}
	f.api.must(t, f.viewer, `mutation { createApiToken(name: "watcher", app: "orders") { token { id } secret } }`, nil, &out)
	c, err := client.Dial(ctx, f.api.url, client.Options{Token: out.CreateApiToken.Secret})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	logs, err := c.Subscribe(ctx, logsSub, map[string]any{"id": f.instanceID})
	if err != nil {
		t.Fatal(err)
	}
	updates, err := c.Subscribe(ctx, `subscription { instanceUpdated(app: "orders") { id } }`, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.write(t, 1, 1)
	expect(t, ctx, logs, 1, 1) // it is live
	f.api.must(t, f.viewer, `mutation($id: ID!) { revokeApiToken(id: $id) }`, map[string]any{"id": out.CreateApiToken.Token.ID}, nil)
	for name, s := range map[string]*client.Sub{"instanceLogs": logs, "instanceUpdated": updates} {
		var err error
		for err == nil { // values sent before the revocation may come first
			_, err = s.Next(ctx)
		}
		var errs client.Errors
		if !errors.As(err, &errs) || errs.Code() != CodeUnauthenticated {
			t.Fatalf("%s after revocation: got %v, want UNAUTHENTICATED", name, err)
		}
	}
	// And new requests with it are refused.
	if r := f.api.do(t, out.CreateApiToken.Secret, `{ apps { name } }`, nil, nil); r.code() != CodeUnauthenticated {
		t.Fatalf("revoked token: %+v", r.Errors)
	}
}

// TestWriteTimeoutDropsStuckClients: writes to a client that stopped
// reading end, once the connection's buffers are full, by closing the
// connection after the write timeout, so the writer is not stuck forever.
func TestWriteTimeoutDropsStuckClients(t *testing.T) {
	t.Parallel()
	done := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := wsAccept{writeTimeout: 100 * time.Millisecond}.Accept(w, r, transport.WebsocketAcceptOptions{})
		if err != nil {
			done <- err
			return
		}
		big := map[string]string{"type": "next", "payload": strings.Repeat("x", 1<<20)}
		for {
			if err := c.WriteJSON(big); err != nil {
				done <- err
				return
			}
		}
	}))
	defer srv.Close()
	ctx := waitCtx(t)
	ws, _, err := websocket.Dial(ctx, strings.Replace(srv.URL, "http", "ws", 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow() // never reads
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the stuck writes ended without an error")
		}
	case <-ctx.Done():
		t.Fatal("a write to a client that does not read was never ended")
	}
}

var _ = live.ErrSlowConsumer

// TestWorkersUpdatedSubscription: a VIEWER gets the app's workers at once
// and again when one connects; a user without a role on the app is told
// it does not exist.
func TestWorkersUpdatedSubscription(t *testing.T) {
	t.Parallel()
	d := dbtest.Open(t, db.SQLite)
	f := newFixture(t, d, apiOptions{})
	ctx := waitCtx(t)
	c, err := client.Dial(ctx, f.api.url, client.Options{Token: f.viewer})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const q = `subscription { workersUpdated(app: "orders") { id host alive health } }`
	s, err := c.Subscribe(ctx, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	type listing struct {
		WorkersUpdated []struct {
			ID, Host, Health string
			Alive            bool
		}
	}
	read := func() listing {
		t.Helper()
		raw, err := s.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var l listing
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	if l := read(); len(l.WorkersUpdated) != 0 {
		t.Fatalf("first listing: %+v; want no workers", l)
	}
	now := db.Now()
	if err := d.WorkerUpsert(context.Background(), &db.Worker{AppID: f.appID, ID: "w1", ServerID: "s", Host: "host-a",
		Tags: []string{}, Processors: []string{}, Slots: 2, ConnectedAt: now, LastHeartbeat: now}); err != nil {
		t.Fatal(err)
	}
	// No hint here (no worker hub): the subscription's re-read finds it.
	if l := read(); len(l.WorkersUpdated) != 1 || l.WorkersUpdated[0].Host != "host-a" || !l.WorkersUpdated[0].Alive {
		t.Fatalf("after a connect: %+v", l)
	}

	stranger := f.api.createUser(t, f.admin, "stranger")
	c2, err := client.Dial(ctx, f.api.url, client.Options{Token: stranger})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	s2, err := c2.Subscribe(ctx, q, nil)
	if err == nil {
		_, err = s2.Next(ctx)
	}
	var errs client.Errors
	if !errors.As(err, &errs) || errs.Code() != CodeNotFound {
		t.Fatalf("a user without a role subscribes: %v; want NOT_FOUND", err)
	}
}

// TestWorkflowInstanceUpdatedSubscription: a viewer watching a run gets
// it at once, then each node transition the engine commits and hints
// (from any server: the hint crosses the bus), with the nodes' states
// read afresh; the stream stays open after the run ends; a user without a
// role on the app is told the run does not exist.
func TestWorkflowInstanceUpdatedSubscription(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, apiOptions{live: live.Config{PollEvery: time.Hour}})
		ctx := waitCtx(t)
		other := f.api.createJob(t, f.admin, "orders", "load")
		w := f.api.createWorkflow(t, f.admin, pipeline("orders", "nightly", fmt.Sprint(f.jobID), other))
		runID := f.api.runWorkflow(t, f.admin, w.ID, nil)
		run := mustInt(t, runID)
		c, err := client.Dial(ctx, f.api.url, client.Options{Token: f.viewer})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s, err := c.Subscribe(ctx, `subscription($id: ID!) { workflowInstanceUpdated(id: $id) { id status context nodes { key status generation } } }`,
			map[string]any{"id": runID})
		if err != nil {
			t.Fatal(err)
		}
		type update struct {
			WorkflowInstanceUpdated struct {
				ID, Status string
				Context    map[string]any
				Nodes      []struct {
					Key, Status string
					Generation  int
				}
			}
		}
		read := func() update {
			t.Helper()
			raw, err := s.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var u update
			if err := json.Unmarshal(raw, &u); err != nil {
				t.Fatal(err)
			}
			return u
		}
		if u := read(); u.WorkflowInstanceUpdated.Status != "WAITING" || len(u.WorkflowInstanceUpdated.Nodes) != 3 {
			t.Fatalf("first: %+v", u)
		}
		// What the engine does, step by step: each committed change hinted.
		bg := context.Background()
		hint := func() { f.api.live.WorkflowInstancesChanged(f.appID, []int64{run}) }
		if ok, err := d.WorkflowInstanceTransition(bg, db.WorkflowInstanceTransition{ID: run, From: []string{db.WorkflowWaiting}, To: db.WorkflowRunning}); !ok || err != nil {
			t.Fatalf("start: %v %v", ok, err)
		}
		if err := d.WorkflowNodeRunCreateMany(bg, []db.WorkflowNodeRun{
			{WorkflowInstanceID: run, NodeKey: "extract", NodeType: db.NodeJob, Status: db.NodeRunning},
			{WorkflowInstanceID: run, NodeKey: "check", NodeType: db.NodeDecision, Status: db.NodeWaiting},
			{WorkflowInstanceID: run, NodeKey: "load", NodeType: db.NodeJob, Status: db.NodeWaiting},
		}); err != nil {
			t.Fatal(err)
		}
		hint()
		if u := read().WorkflowInstanceUpdated; u.Status != "RUNNING" || u.Nodes[0].Status != "RUNNING" {
			t.Fatalf("started: %+v", u)
		}
		extract, err := d.WorkflowNodeRunGet(bg, run, "extract")
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := d.WorkflowNodeRunTransition(bg, db.WorkflowNodeRunTransition{ID: extract.ID, From: []string{db.NodeRunning}, Generation: 1, To: db.NodeSucceeded,
			Output: map[string]any{"rows": 10}, FinishSeq: ptrTo(int64(1))}, nil); !ok || err != nil {
			t.Fatalf("finish extract: %v %v", ok, err)
		}
		hint()
		if u := read().WorkflowInstanceUpdated; u.Nodes[0].Status != "SUCCEEDED" || u.Context["rows"] != 10.0 {
			t.Fatalf("extract done: %+v", u)
		}
		if ok, err := d.WorkflowInstanceTransition(bg, db.WorkflowInstanceTransition{ID: run, From: []string{db.WorkflowRunning}, To: db.WorkflowFailed}); !ok || err != nil {
			t.Fatalf("fail: %v %v", ok, err)
		}
		hint()
		if u := read().WorkflowInstanceUpdated; u.Status != "FAILED" {
			t.Fatalf("failed: %+v", u)
		}
		// Ended runs can run again: a rerun of extract (generation 2) arrives.
		if ok, err := d.WorkflowNodeRunTransition(bg, db.WorkflowNodeRunTransition{ID: extract.ID, From: []string{db.NodeSucceeded}, Generation: 1, To: db.NodeWaiting,
			NextGeneration: ptrTo(2), Reset: true}, nil); !ok || err != nil {
			t.Fatalf("rerun: %v %v", ok, err)
		}
		hint()
		if u := read().WorkflowInstanceUpdated; u.Nodes[0].Generation != 2 || u.Nodes[0].Status != "WAITING" {
			t.Fatalf("rerun: %+v", u)
		}

		stranger := f.api.createUser(t, f.admin, "stranger")
		c2, err := client.Dial(ctx, f.api.url, client.Options{Token: stranger})
		if err != nil {
			t.Fatal(err)
		}
		defer c2.Close()
		s2, err := c2.Subscribe(ctx, `subscription($id: ID!) { workflowInstanceUpdated(id: $id) { id } }`, map[string]any{"id": runID})
		if err == nil {
			_, err = s2.Next(ctx)
		}
		var errs client.Errors
		if !errors.As(err, &errs) || errs.Code() != CodeNotFound {
			t.Fatalf("a user without a role subscribes: %v; want NOT_FOUND", err)
		}
	})
}
