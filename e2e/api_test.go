package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/graph/client"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// code returns the GraphQL error code of err ("" if it is not one).
func code(err error) string {
	var errs harness.Errors
	if errors.As(err, &errs) {
		return errs.Code()
	}
	return ""
}

func mustCode(t *testing.T, what string, err error, want string) {
	t.Helper()
	if got := code(err); got != want {
		t.Fatalf("%s: got %v, want %s", what, err, want)
	}
}

// TestAPIAccessControl: a VIEWER reads an app but every mutation on it is
// FORBIDDEN; a user with no role does not see the app at all; an API token
// narrowed to VIEWER cannot change anything; a revoked token stops working
// at once; an unauthenticated websocket is refused.
func TestAPIAccessControl(t *testing.T) {
	t.Parallel()
	srv := harness.StartServer(t, harness.ServerOptions{})
	admin := srv.Client()
	if _, _, err := admin.CreateApp("orders"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := admin.CreateApp("billing"); err != nil {
		t.Fatal(err)
	}
	jobID, err := admin.CreateJob(map[string]any{"app": "orders", "name": "report", "scheduleType": "API",
		"processorType": "SHELL", "processor": "echo hi"})
	if err != nil {
		t.Fatal(err)
	}
	instanceID, err := admin.RunJob(jobID, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"vera", "nora"} {
		if err := admin.Do(`mutation($u: String!) { createUser(username: $u, password: "password-1") { id } }`, map[string]any{"u": u}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := admin.Do(`mutation { setAppRole(app: "orders", username: "vera", role: VIEWER) { name } }`, nil, nil); err != nil {
		t.Fatal(err)
	}
	login := func(user string) *harness.Client {
		c := harness.NewClient(srv.URL)
		if err := c.Login(user, "password-1"); err != nil {
			t.Fatal(err)
		}
		return c
	}
	vera, nora := login("vera"), login("nora")

	// Vera, VIEWER of orders, reads it.
	var seen struct {
		Apps []struct {
			Name, MyRole string
			Members      []struct{ Username, Role string }
		}
		Jobs      struct{ TotalCount int }
		Instances struct {
			Edges []struct{ Node struct{ ID string } }
		}
	}
	err = vera.Do(`{ apps { name myRole members { username role } } jobs(app: "orders") { totalCount }
		instances(app: "orders") { edges { node { id } } } }`, nil, &seen)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen.Apps) != 1 || seen.Apps[0].Name != "orders" || seen.Apps[0].MyRole != "VIEWER" || seen.Jobs.TotalCount != 1 || len(seen.Instances.Edges) != 1 {
		t.Fatalf("vera sees %+v", seen)
	}
	// …and every mutation on it is FORBIDDEN.
	jobInput := map[string]any{"app": "orders", "name": "x", "scheduleType": "API", "processorType": "SHELL", "processor": "echo"}
	mutations := []struct {
		name, query string
		vars        map[string]any
	}{
		{"createJob", `mutation($in: JobInput!) { createJob(input: $in) { id } }`, map[string]any{"in": jobInput}},
		{"updateJob", `mutation($id: ID!, $in: JobInput!) { updateJob(id: $id, input: $in) { id } }`, map[string]any{"id": jobID, "in": jobInput}},
		{"setJobEnabled", `mutation($id: ID!) { setJobEnabled(id: $id, enabled: false) { id } }`, map[string]any{"id": jobID}},
		{"deleteJob", `mutation($id: ID!) { deleteJob(id: $id) }`, map[string]any{"id": jobID}},
		{"runJob", `mutation($id: ID!) { runJob(id: $id) { id } }`, map[string]any{"id": jobID}},
		{"stopInstance", `mutation($id: ID!) { stopInstance(id: $id) { id } }`, map[string]any{"id": instanceID}},
		{"retryInstance", `mutation($id: ID!) { retryInstance(id: $id) { id } }`, map[string]any{"id": instanceID}},
		{"setAppRole", `mutation { setAppRole(app: "orders", username: "vera", role: OWNER) { name } }`, nil},
		{"rotateAppSecret", `mutation { rotateAppSecret(app: "orders") { secret } }`, nil},
		{"createApiToken", `mutation { createApiToken(name: "t", app: "orders", role: EDITOR) { secret } }`, nil},
		{"createApp", `mutation { createApp(name: "mine") { secret } }`, nil},
		{"createUser", `mutation { createUser(username: "eve", password: "password-1") { id } }`, nil},
	}
	for _, m := range mutations {
		mustCode(t, "vera: "+m.name, vera.Do(m.query, m.vars, nil), "FORBIDDEN")
	}

	// Nora has no role on orders: it does not exist for her.
	var noraApps struct{ Apps []struct{ Name string } }
	if err := nora.Do(`{ apps { name } }`, nil, &noraApps); err != nil || len(noraApps.Apps) != 0 {
		t.Fatalf("nora's apps: %+v %v", noraApps, err)
	}
	for _, q := range []struct {
		name, query string
		vars        map[string]any
	}{
		{"jobs", `{ jobs(app: "orders") { edges { cursor } } }`, nil},
		{"job", `query($id: ID!) { job(id: $id) { id } }`, map[string]any{"id": jobID}},
		{"instances", `{ instances(app: "orders") { edges { cursor } } }`, nil},
		{"instance", `query($id: ID!) { instance(id: $id) { id } }`, map[string]any{"id": instanceID}},
		{"workers", `{ workers(app: "orders") { id } }`, nil},
	} {
		mustCode(t, "nora: "+q.name, nora.Do(q.query, q.vars, nil), "NOT_FOUND")
	}
	for _, m := range mutations[:7] {
		err := nora.Do(m.query, m.vars, nil)
		var errs harness.Errors
		if m.name == "createJob" && errors.As(err, &errs) && errs.Code() == "BAD_INPUT" && errs[0].Field() == "app" {
			continue // the app named in the input does not exist for her
		}
		mustCode(t, "nora: "+m.name, err, "NOT_FOUND")
	}

	// An API token narrowed to VIEWER on orders reads and changes nothing.
	var tok struct {
		CreateApiToken struct {
			Token  struct{ ID string }
			Secret string
		}
	}
	if err := admin.Do(`mutation { createApiToken(name: "dashboard", app: "orders", role: VIEWER) { token { id } secret } }`, nil, &tok); err != nil {
		t.Fatal(err)
	}
	reader := harness.NewClient(srv.URL)
	reader.Token = tok.CreateApiToken.Secret
	var readerApps struct{ Apps []struct{ Name string } }
	if err := reader.Do(`{ apps { name } }`, nil, &readerApps); err != nil || len(readerApps.Apps) != 1 || readerApps.Apps[0].Name != "orders" {
		t.Fatalf("the reader token sees %+v, %v; want only orders", readerApps, err)
	}
	for _, m := range mutations {
		mustCode(t, "reader token: "+m.name, reader.Do(m.query, m.vars, nil), "FORBIDDEN")
	}
	mustCode(t, "reader token on billing", reader.Do(`{ jobs(app: "billing") { edges { cursor } } }`, nil, nil), "NOT_FOUND")

	// An unauthenticated websocket is refused; the token's is accepted.
	ctx, cancel := context.WithTimeout(context.Background(), settle)
	defer cancel()
	_, err = client.Dial(ctx, reader.URL, client.Options{})
	var ce *client.CloseError
	if !errors.As(err, &ce) || ce.Code != 4403 {
		t.Fatalf("anonymous websocket: got %v, want close code 4403", err)
	}
	ws, err := client.Dial(ctx, reader.URL, client.Options{Token: reader.Token})
	if err != nil {
		t.Fatalf("websocket with the token: %v", err)
	}
	defer ws.Close()

	// Revoked, it stops working at once: requests and websockets.
	if err := admin.Do(`mutation($id: ID!) { revokeApiToken(id: $id) }`, map[string]any{"id": tok.CreateApiToken.Token.ID}, nil); err != nil {
		t.Fatal(err)
	}
	mustCode(t, "revoked token", reader.Do(`{ apps { name } }`, nil, nil), "UNAUTHENTICATED")
	if _, err = client.Dial(ctx, reader.URL, client.Options{Token: reader.Token}); !errors.As(err, &ce) || ce.Code != 4403 {
		t.Fatalf("websocket with a revoked token: got %v, want close code 4403", err)
	}
	var tokens struct {
		APITokens []struct {
			Name      string
			RevokedAt *time.Time
		} `json:"apiTokens"`
	}
	if err := admin.Do(`{ apiTokens { name revokedAt } }`, nil, &tokens); err != nil || len(tokens.APITokens) != 1 || tokens.APITokens[0].RevokedAt == nil {
		t.Fatalf("apiTokens after revocation: %+v %v", tokens, err)
	}
}

// slowScript prints "line 1" … "line n", pausing between lines, so a
// subscriber can disconnect and come back while it runs.
func slowScript(n int) string {
	return fmt.Sprintf(`i=1; while [ $i -le %d ]; do echo "line $i"; i=$((i+1)); sleep 0.05; done`, n)
}

// follower reads an instance's log over instanceLogs subscriptions.
type follower struct {
	t     *testing.T
	url   string
	token string
	seqs  []int64
	texts []string
}

// follow subscribes after the last seq received and reads until the
// stream completes (true) or `stopAfter` lines were read (false).
func (f *follower) follow(ctx context.Context, instanceID string, stopAfter int) bool {
	f.t.Helper()
	c, err := client.Dial(ctx, f.url, client.Options{Token: f.token})
	if err != nil {
		f.t.Fatal(err)
	}
	defer c.CloseNow() // an abrupt disconnect, as a dropped network would
	var after int64
	if n := len(f.seqs); n > 0 {
		after = f.seqs[n-1]
	}
	s, err := c.Subscribe(ctx, `subscription($id: ID!, $after: Int) { instanceLogs(instanceId: $id, afterSeq: $after) { seq text } }`,
		map[string]any{"id": instanceID, "after": after})
	if err != nil {
		f.t.Fatal(err)
	}
	for read := 0; stopAfter == 0 || read < stopAfter; read++ {
		raw, err := s.Next(ctx)
		if errors.Is(err, io.EOF) {
			return true
		}
		if err != nil {
			f.t.Fatalf("instanceLogs after %d lines: %v", len(f.seqs), err)
		}
		var out struct {
			InstanceLogs struct {
				Seq  int64
				Text string
			}
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			f.t.Fatal(err)
		}
		f.seqs = append(f.seqs, out.InstanceLogs.Seq)
		f.texts = append(f.texts, out.InstanceLogs.Text)
	}
	return false
}

// check says whether the lines are "line 1" … "line n" with seqs 1 … n:
// every line exactly once, in order.
func (f *follower) check(n int) {
	f.t.Helper()
	if len(f.seqs) != n {
		f.t.Fatalf("got %d lines, want %d: %q", len(f.seqs), n, f.texts)
	}
	for i := range f.seqs {
		if f.seqs[i] != int64(i+1) || f.texts[i] != fmt.Sprintf("line %d", i+1) {
			f.t.Fatalf("line %d is seq %d %q; want seq %d \"line %d\"", i, f.seqs[i], f.texts[i], i+1, i+1)
		}
	}
}

// followAcrossReconnects follows a running instance's log: part of it,
// then a disconnect, then the rest from the last seq received.
func followAcrossReconnects(t *testing.T, url, token, instanceID string, lines int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*settle)
	defer cancel()
	f := &follower{t: t, url: url, token: token}
	if f.follow(ctx, instanceID, lines/4) {
		t.Fatal("the stream completed early")
	}
	for round := 0; !f.follow(ctx, instanceID, lines/4); round++ {
		if round > lines {
			t.Fatal("the stream never completed")
		}
	}
	f.check(lines)
}

// TestLogSubscription: a subscriber to the log of a running SHELL job gets
// every line exactly once and in order, across disconnects.
func TestLogSubscription(t *testing.T) {
	t.Parallel()
	dialects(t, func(t *testing.T, dbURL string) {
		cl := newCluster(t, dbURL, 1)
		const lines = 80
		job := cl.job(t, map[string]any{"name": "chatty", "processorType": "SHELL", "processor": slowScript(lines)})
		id := cl.run(t, job)
		followAcrossReconnects(t, cl.srv.URL+"/graphql", cl.c.Token, id, lines)
		cl.wait(t, id, "SUCCEEDED")
	})
}

// discoverOwner asks a server which server owns the app, as its workers
// do (with the app's secret).
func discoverOwner(t *testing.T, serverURL, app, secret string) string {
	t.Helper()
	var owner string
	ok := testkit.Poll(settle, func() bool {
		req, _ := http.NewRequest(http.MethodGet, serverURL+"/worker/discover?app="+app, nil)
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var out struct{ Server string }
		if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil {
			return false
		}
		owner = out.Server
		return owner != ""
	})
	if !ok {
		t.Fatalf("no server owns app %s", app)
	}
	return owner
}

// TestLogSubscriptionOnAnotherServer: two servers share one PostgreSQL;
// a subscriber on the server that does not own the app still gets every
// log line once and in order across a reconnect, and the instance's state
// changes, carried by NOTIFY hints and re-reads of the database.
func TestLogSubscriptionOnAnotherServer(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.NewSchema(t)
	a := harness.StartServer(t, harness.ServerOptions{DatabaseURL: dbURL, Name: "server-a"})
	b := harness.StartServer(t, harness.ServerOptions{DatabaseURL: dbURL, Name: "server-b"})
	admin := a.Client()
	_, secret, err := admin.CreateApp("orders")
	if err != nil {
		t.Fatal(err)
	}
	owner := discoverOwner(t, a.URL, "orders", secret)
	other := a
	if owner == a.URL {
		other = b
	} else if owner != b.URL {
		t.Fatalf("owner %s is neither server", owner)
	}
	harness.StartAgent(t, harness.AgentOptions{Servers: []string{a.URL, b.URL}, App: "orders", Secret: secret, Name: "agent1"})
	if _, err := admin.WaitWorkers("orders", 1, connect); err != nil {
		t.Fatal(err)
	}
	const lines = 80
	job, err := admin.CreateJob(map[string]any{"app": "orders", "name": "chatty", "scheduleType": "API",
		"processorType": "SHELL", "processor": slowScript(lines)})
	if err != nil {
		t.Fatal(err)
	}
	// Watch the job's instances on the other server too.
	token := other.Client().Token
	ctx, cancel := context.WithTimeout(context.Background(), 2*settle)
	defer cancel()
	ws, err := client.Dial(ctx, other.URL+"/graphql", client.Options{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	updates, err := ws.Subscribe(ctx, `subscription($job: ID) { instanceUpdated(app: "orders", jobId: $job) { id status worker { id } } }`,
		map[string]any{"job": job})
	if err != nil {
		t.Fatal(err)
	}
	id, err := admin.RunJob(job, "")
	if err != nil {
		t.Fatal(err)
	}
	followAcrossReconnects(t, other.URL+"/graphql", token, id, lines)

	// instanceUpdated on the other server saw it run and succeed.
	statuses := map[string]bool{}
	for !statuses["SUCCEEDED"] {
		raw, err := updates.Next(ctx)
		if err != nil {
			t.Fatalf("instanceUpdated on %s after %v: %v", other.Name, statuses, err)
		}
		var u struct {
			InstanceUpdated struct {
				ID, Status string
				Worker     *struct{ ID string }
			}
		}
		if err := json.Unmarshal(raw, &u); err != nil {
			t.Fatal(err)
		}
		if u.InstanceUpdated.ID != id {
			t.Fatalf("instanceUpdated sent instance %s; want only %s", u.InstanceUpdated.ID, id)
		}
		statuses[u.InstanceUpdated.Status] = true
		if u.InstanceUpdated.Status == "SUCCEEDED" && u.InstanceUpdated.Worker == nil {
			t.Fatal("the finished instance has no worker")
		}
	}
	if !statuses["RUNNING"] && !statuses["DISPATCHED"] {
		t.Fatalf("instanceUpdated saw %v; want it running before it succeeded", statuses)
	}
	if now := discoverOwner(t, a.URL, "orders", secret); now != owner {
		t.Fatalf("the app moved from %s to %s during the test, so the subscriber may have been on its owner", owner, now)
	}
}

// TestGoClientExample builds graph/example/client and runs it against a
// real server and agent: it creates a job, runs it and prints its log. The
// agent's own log is at warn, as the demo agent's is: that must not keep
// the job's (INFO) lines from the client.
func TestGoClientExample(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, "", 0)
	harness.StartAgent(t, harness.AgentOptions{Servers: []string{cl.srv.URL}, App: cl.app, Secret: cl.secret,
		Env: []string{"JOBWHEEL_LOG_LEVEL=warn"}})
	if _, err := cl.c.WaitWorkers(cl.app, 1, connect); err != nil {
		t.Fatal(err)
	}
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "client")
	build := exec.Command("go", "build", "-o", bin, "./graph/example/client")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*settle)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-app", cl.app, "-job", "example", "-script", slowScript(20))
	cmd.Env = append(os.Environ(), "JOBWHEEL_URL="+cl.srv.URL, "JOBWHEEL_PASSWORD="+cl.srv.AdminPassword)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the example client failed: %v\n%s\nserver:\n%s", err, out, tail(cl.srv.Output(), 40))
	}
	text := string(out)
	for i := 1; i <= 20; i++ {
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^\s*%d .*INFO\s+line %d$`, i, i)).MatchString(text) {
			t.Fatalf("output lacks line %d:\n%s", i, text)
		}
	}
	if !strings.Contains(text, "finished: SUCCEEDED") {
		t.Fatalf("output:\n%s", text)
	}
}

// TestSubscriptionsEndUnavailableOnShutdown: a server stopping gracefully
// ends its subscriptions with UNAVAILABLE, so clients subscribe again
// (to another server) instead of taking the end for completion.
func TestSubscriptionsEndUnavailableOnShutdown(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, "", 1)
	job := cl.job(t, map[string]any{"name": "long", "processorType": "SHELL", "processor": "echo started; sleep 60"})
	id := cl.run(t, job)
	cl.wait(t, id, "RUNNING")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := client.Dial(ctx, cl.srv.URL+"/graphql", client.Options{Token: cl.c.Token})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	sub, err := conn.Subscribe(ctx, `subscription($id: ID!) { instanceLogs(instanceId: $id) { seq text } }`, map[string]any{"id": id})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Next(ctx); err != nil {
		t.Fatalf("first line: %v", err)
	}
	go func() { _ = cl.srv.Stop(harness.StopTimeout) }()
	for {
		_, err := sub.Next(ctx)
		if err == nil {
			continue
		}
		var errs client.Errors
		if !errors.As(err, &errs) || errs.Code() != "UNAVAILABLE" {
			t.Fatalf("the subscription ended with %v; want UNAVAILABLE", err)
		}
		return
	}
}

// TestWorkersLiveOnAnotherServer: a console watching an app's workers on
// a server that does not own the app sees a worker connect, and sees it
// lost when it is killed (kill -9), without reloading.
func TestWorkersLiveOnAnotherServer(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.NewSchema(t)
	a := harness.StartServer(t, harness.ServerOptions{DatabaseURL: dbURL, Name: "server-a"})
	b := harness.StartServer(t, harness.ServerOptions{DatabaseURL: dbURL, Name: "server-b"})
	_, secret, err := a.Client().CreateApp("orders")
	if err != nil {
		t.Fatal(err)
	}
	other := a
	if discoverOwner(t, a.URL, "orders", secret) == a.URL {
		other = b
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*settle)
	defer cancel()
	ws, err := client.Dial(ctx, other.URL+"/graphql", client.Options{Token: other.Client().Token})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	sub, err := ws.Subscribe(ctx, `subscription { workersUpdated(app: "orders") { id host alive health } }`, nil)
	if err != nil {
		t.Fatal(err)
	}
	// until reads listings until want holds for the agent's entry.
	until := func(what string, want func(alive bool, health string) bool) {
		t.Helper()
		for {
			raw, err := sub.Next(ctx)
			if err != nil {
				t.Fatalf("workersUpdated on %s, waiting for the agent %s: %v", other.Name, what, err)
			}
			var l struct {
				WorkersUpdated []struct {
					ID, Host, Health string
					Alive            bool
				}
			}
			if err := json.Unmarshal(raw, &l); err != nil {
				t.Fatal(err)
			}
			for _, w := range l.WorkersUpdated {
				if strings.HasPrefix(w.ID, "agent1-") && want(w.Alive, w.Health) {
					return
				}
			}
		}
	}
	agent := harness.StartAgent(t, harness.AgentOptions{Servers: []string{a.URL, b.URL}, App: "orders", Secret: secret, Name: "agent1"})
	until("connected", func(alive bool, _ string) bool { return alive })
	agent.Kill()
	until("lost", func(alive bool, health string) bool { return !alive && health == "LOST" })
}
