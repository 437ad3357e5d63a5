package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/graph/client"
	"github.com/jobwheel/jobwheel/internal/testkit"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// TestWebsocketCredentialDies (issue 11, item 1): on real servers sharing
// PostgreSQL, an EDITOR's API token revoked through one server closes the
// websocket opened with it on the other with 4403, and createJob sent on
// it is refused; the same after logout for a session's socket.
func TestWebsocketCredentialDies(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.NewSchema(t)
	a := harness.StartServer(t, harness.ServerOptions{DatabaseURL: dbURL, Name: "server-a"})
	b := harness.StartServer(t, harness.ServerOptions{DatabaseURL: dbURL, Name: "server-b"})
	admin := a.Client()
	if _, _, err := admin.CreateApp("orders"); err != nil {
		t.Fatal(err)
	}
	if err := admin.Do(`mutation { createUser(username: "ed", password: "password-1") { id } }`, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := admin.Do(`mutation { setAppRole(app: "orders", username: "ed", role: EDITOR) { name } }`, nil, nil); err != nil {
		t.Fatal(err)
	}
	ed := harness.NewClient(a.URL)
	if err := ed.Login("ed", "password-1"); err != nil {
		t.Fatal(err)
	}
	var tok struct {
		CreateApiToken struct {
			Token  struct{ ID string }
			Secret string
		}
	}
	if err := ed.Do(`mutation { createApiToken(name: "deploy", app: "orders", role: EDITOR) { token { id } secret } }`, nil, &tok); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*settle)
	defer cancel()
	createJob := `mutation($n: String!) { createJob(input: {app: "orders", name: $n, scheduleType: API, processorType: SHELL, processor: "true"}) { id } }`

	for _, tc := range []struct {
		name   string
		server *harness.Server
		token  string
		kill   func() error
	}{
		{"API token revoked on the other server", b, tok.CreateApiToken.Secret, func() error {
			return ed.Do(`mutation($id: ID!) { revokeApiToken(id: $id) }`, map[string]any{"id": tok.CreateApiToken.Token.ID}, nil)
		}},
		{"session logged out", a, ed.Token, func() error { return ed.Do(`mutation { logout }`, nil, nil) }},
	} {
		c, err := client.Dial(ctx, tc.server.URL+"/graphql", client.Options{Token: tc.token})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		s, err := c.Subscribe(ctx, createJob, map[string]any{"n": "before: " + tc.name})
		if err == nil {
			_, err = s.Next(ctx)
		}
		if err != nil {
			t.Fatalf("%s: createJob while the credential lives: %v", tc.name, err)
		}
		if err := tc.kill(); err != nil {
			t.Fatal(err)
		}
		// An operation sent now is refused (or finds the socket closed).
		s, err = c.Subscribe(ctx, createJob, map[string]any{"n": "after: " + tc.name})
		if err == nil {
			_, err = s.Next(ctx)
		}
		var errs client.Errors
		var closed *client.CloseError
		refused := errors.As(err, &errs) && errs.Code() == "UNAUTHENTICATED" || errors.As(err, &closed) && closed.Code == 4403
		if !refused && err != nil {
			// The server's close can win the race with the write: the write
			// then fails on the closed connection ("use of closed network
			// connection"), and the close, checked below, must be 4403.
			select {
			case <-c.Done():
				refused = true
			case <-time.After(settle):
			}
		}
		if !refused {
			t.Fatalf("%s: createJob on the old socket: %v, want UNAUTHENTICATED", tc.name, err)
		}
		select {
		case <-c.Done():
		case <-ctx.Done():
			t.Fatalf("%s: the socket was not closed", tc.name)
		}
		if !errors.As(c.Err(), &closed) || closed.Code != 4403 || !strings.HasPrefix(closed.Reason, "UNAUTHENTICATED: ") {
			t.Fatalf("%s: the socket closed with %v; want 4403 UNAUTHENTICATED", tc.name, c.Err())
		}
	}
	var jobs struct {
		Jobs struct {
			Edges []struct{ Node struct{ Name string } }
		}
	}
	if err := admin.Do(`{ jobs(app: "orders") { edges { node { name } } } }`, nil, &jobs); err != nil {
		t.Fatal(err)
	}
	for _, e := range jobs.Jobs.Edges {
		if strings.HasPrefix(e.Node.Name, "after") {
			t.Fatalf("a job was created on a dead credential: %s", e.Node.Name)
		}
	}
}

// fakeWorker is a hostile worker of an app, speaking the protocol over a
// real websocket.
type fakeWorker struct {
	t    *testing.T
	conn *websocket.Conn
	mu   sync.Mutex
	acks map[int64]*protocol.Ack
	next int64
	// writing serializes writes: gorilla allows one writer at a time, and
	// a test may heart-beat from a goroutine of its own.
	writing sync.Mutex
}

func dialWorker(t *testing.T, serverURL, app, secret string) *fakeWorker {
	t.Helper()
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(serverURL, "http")+protocol.ConnectPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	w := &fakeWorker{t: t, conn: conn, acks: map[int64]*protocol.Ack{}}
	w.send(protocol.TypeHello, &protocol.Hello{App: app, WorkerID: "mallory", Host: "mallory", Slots: 1, Auth: secret, Protocol: protocol.Version})
	_, data, err := conn.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	if f, _, err := protocol.Decode(data); err != nil || f.Type != protocol.TypeWelcome {
		t.Fatalf("hello: %s %v", data, err)
	}
	go func() {
		for {
			_, data, err := conn.ReadMessage()
			if err != nil {
				return
			}
			f, body, err := protocol.Decode(data)
			if err != nil {
				continue
			}
			if a, ok := body.(*protocol.Ack); ok {
				w.mu.Lock()
				w.acks[f.Re] = a
				w.mu.Unlock()
			}
		}
	}()
	return w
}

func (w *fakeWorker) send(typ string, body any) int64 {
	w.mu.Lock()
	w.next++
	id := w.next
	w.mu.Unlock()
	b, err := protocol.Encode(id, 0, typ, body)
	if err == nil {
		w.writing.Lock()
		err = w.conn.WriteMessage(websocket.TextMessage, b)
		w.writing.Unlock()
	}
	if err != nil {
		w.t.Errorf("sending %s: %v", typ, err) // may run outside the test's goroutine
	}
	return id
}

func (w *fakeWorker) ack(id int64) *protocol.Ack {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.acks[id]
}

// TestCrossTenantLogs (issue 11, items 2 and 10): while app alpha's agent
// writes a 200-line instance, a worker of app beta floods the server
// (PostgreSQL) with log frames it must not store: times in the year 0,
// the server's own sequence numbers, and lines for alpha's instance and
// for beta's own instance that was never given to it. alpha keeps every
// line, in order, and its agent is never refused; beta is told a code,
// never the database's words.
func TestCrossTenantLogs(t *testing.T) {
	t.Parallel()
	srv := harness.StartServer(t, harness.ServerOptions{DatabaseURL: dbtest.NewSchema(t)})
	c := srv.Client()
	_, alphaSecret, err := c.CreateApp("alpha")
	if err != nil {
		t.Fatal(err)
	}
	_, betaSecret, err := c.CreateApp("beta")
	if err != nil {
		t.Fatal(err)
	}
	agent := harness.StartAgent(t, harness.AgentOptions{Servers: []string{srv.URL}, App: "alpha", Secret: alphaSecret, Name: "alpha-agent"})
	if _, err := c.WaitWorkers("alpha", 1, connect); err != nil {
		t.Fatal(err)
	}
	alphaJob, err := c.CreateJob(map[string]any{"app": "alpha", "name": "chatty", "scheduleType": "API", "processorType": "SHELL",
		"processor": `for i in $(seq 1 200); do echo "line $i"; sleep 0.01; done`})
	if err != nil {
		t.Fatal(err)
	}
	betaJob, err := c.CreateJob(map[string]any{"app": "beta", "name": "b", "scheduleType": "API", "processorType": "SHELL", "processor": "true"})
	if err != nil {
		t.Fatal(err)
	}
	betaInstance, err := c.RunJob(betaJob, "") // stays WAITING: beta has no worker that runs SHELL
	if err != nil {
		t.Fatal(err)
	}
	alphaInstance, err := c.RunJob(alphaJob, "")
	if err != nil {
		t.Fatal(err)
	}
	var alphaID, betaID int64
	fmt.Sscan(alphaInstance, &alphaID)
	fmt.Sscan(betaInstance, &betaID)

	mallory := dialWorker(t, srv.URL, "beta", betaSecret)
	year0 := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	attacks := []struct {
		name string
		logs protocol.Logs
		code string
	}{
		{"year 0", protocol.Logs{Lines: []protocol.LogLine{{InstanceID: betaID, Seq: 1, Time: year0, Level: "INFO", Text: "x"}}}, protocol.CodeBadFrame},
		{"server's seq", protocol.Logs{Lines: []protocol.LogLine{{InstanceID: betaID, Seq: -1, Time: time.Now(), Level: "INFO", Text: "forged"}}}, protocol.CodeBadFrame},
		{"into alpha", protocol.Logs{Lines: []protocol.LogLine{{InstanceID: alphaID, Seq: 1, Time: time.Now(), Level: "INFO", Text: "injected"}}}, protocol.CodeRefused},
		{"not given", protocol.Logs{Lines: []protocol.LogLine{{InstanceID: betaID, Seq: 1, Time: time.Now(), Level: "INFO", Text: "not mine"}}}, protocol.CodeRefused},
	}
	sent := map[int64]string{}
	done := make(chan struct{})
	flooding := make(chan struct{})
	go func() {
		defer close(flooding)
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			a := attacks[i%len(attacks)]
			sent[mallory.send(protocol.TypeLogs, &a.logs)] = a.name
			if i%50 == 0 {
				mallory.send(protocol.TypeHeartbeat, &protocol.Heartbeat{})
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	in, err := c.WaitInstance(alphaInstance, settle, "SUCCEEDED", "FAILED")
	close(done)
	<-flooding
	if err != nil || in.Status != "SUCCEEDED" {
		t.Fatalf("alpha's instance: %+v %v", in, err)
	}
	if len(in.Logs.Lines) != 200 {
		t.Fatalf("alpha's instance has %d lines, want 200\nagent:\n%s", len(in.Logs.Lines), tail(agent.Output(), 20))
	}
	for i, l := range in.Logs.Lines {
		if l.Text != fmt.Sprintf("line %d", i+1) || l.Worker == nil || !strings.HasPrefix(*l.Worker, "alpha-agent") {
			t.Fatalf("alpha's line %d: %+v", i+1, l)
		}
	}
	if strings.Contains(agent.Output(), "refused log lines") {
		t.Fatalf("alpha's agent was refused:\n%s", agent.Output())
	}
	// Every attack was answered, with its code and without internals.
	if !testkit.Poll(settle, func() bool {
		for id := range sent {
			if mallory.ack(id) == nil {
				return false
			}
		}
		return true
	}) {
		t.Fatal("not every frame of beta's worker was answered")
	}
	for id, name := range sent {
		a := mallory.ack(id)
		var want string
		for _, at := range attacks {
			if at.name == name {
				want = at.code
			}
		}
		if a.OK || a.Code != want || strings.Contains(a.Error, "SQLSTATE") || strings.Contains(a.Error, "ERROR:") {
			t.Fatalf("%s: ack %+v, want %s without database text", name, a, want)
		}
	}
	beta, err := c.Instance(betaInstance)
	if err != nil || len(beta.Logs.Lines) != 0 {
		t.Fatalf("beta's instance got lines: %+v %v", beta, err)
	}
}

// TestLoginRateLimited (issue 11, item 5): against a real server, one
// request cannot try many passwords under aliases, and past five failed
// attempts a username answers RATE_LIMITED, even to the right password,
// with a wait that grows; another username is not held up.
func TestLoginRateLimited(t *testing.T) {
	t.Parallel()
	srv := harness.StartServer(t, harness.ServerOptions{})
	admin := srv.Client()
	if err := admin.Do(`mutation { createUser(username: "carol", password: "password-1") { id } }`, nil, nil); err != nil {
		t.Fatal(err)
	}
	anon := harness.NewClient(srv.URL)
	var aliases strings.Builder
	aliases.WriteString("mutation {")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&aliases, ` a%d: login(username: "admin", password: "guess-%d") { token }`, i, i)
	}
	aliases.WriteString(" }")
	if err := anon.Do(aliases.String(), nil, nil); code(err) != "BAD_INPUT" || !strings.Contains(err.Error(), "at most one login") {
		t.Fatalf("100 logins in one request: %v", err)
	}
	for i := 1; i <= 5; i++ {
		if err := anon.Login("admin", fmt.Sprintf("wrong-%d", i)); code(err) != "UNAUTHENTICATED" {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	var waits []int
	for i := 0; i < 3; i++ {
		err := anon.Login("admin", srv.AdminPassword)
		var errs harness.Errors
		if !errors.As(err, &errs) || errs.Code() != "RATE_LIMITED" {
			t.Fatalf("after 5 failures: %v, want RATE_LIMITED", err)
		}
		retry, _ := errs[0].Extensions["retryAfter"].(float64)
		if retry < 1 {
			t.Fatalf("no wait given: %+v", errs[0])
		}
		waits = append(waits, int(retry))
		if i < 2 {
			time.Sleep(time.Duration(retry) * time.Second) // as told
			if err := anon.Login("admin", "wrong-again"); code(err) != "UNAUTHENTICATED" {
				t.Fatalf("after the wait: %v", err)
			}
		}
	}
	if !(waits[1] > waits[0] && waits[2] > waits[1]) {
		t.Fatalf("waits %v do not grow", waits)
	}
	if err := harness.NewClient(srv.URL).Login("carol", "password-1"); err != nil {
		t.Fatalf("another user was held up: %v", err)
	}
	if !strings.Contains(srv.Output(), "login refused by the rate limit") {
		t.Fatal("the server did not log the refusals")
	}
}

// TestAgentHidesSecret (issue 11, item 4): a script the agent runs finds
// the app secret neither in the agent's environment nor in its arguments
// (here the agent got it from the environment), so an EDITOR cannot print
// it into a log VIEWERs read. Run as root, the script can open the
// agent's /proc files, and the secret is not in them; run as another
// user, the agent is non-dumpable and the script cannot open them at all.
func TestAgentHidesSecret(t *testing.T) {
	t.Parallel()
	cl := newCluster(t, "", 1)
	job := cl.job(t, map[string]any{"name": "snoop", "processorType": "SHELL", "processor": `
if { tr '\0' '\n' < /proc/$PPID/environ; } > /dev/null 2>&1; then
  echo "env: $(tr '\0' '\n' < /proc/$PPID/environ | grep JOBWHEEL_ | cut -d= -f1 | sort | tr '\n' ' ')"
else
  echo "env: unreadable"
fi
{ tr '\0' '\n' < /proc/$PPID/environ; } 2>/dev/null | grep -q jwa_ && echo "FOUND in environ"
{ tr '\0' '\n' < /proc/$PPID/cmdline; } 2>/dev/null | grep -q jwa_ && echo "FOUND in cmdline"
env | grep -q jwa_ && echo "FOUND in the script's environment"
echo checked`})
	in := cl.wait(t, cl.run(t, job), "SUCCEEDED", "FAILED")
	all := strings.Join(texts(in), "\n")
	want := "env: JOBWHEEL_" // root reads the agent's environment, rewritten
	if os.Geteuid() != 0 {
		want = "env: unreadable" // the agent is non-dumpable
	}
	if !strings.Contains(all, "checked") || !strings.Contains(all, want) {
		t.Fatalf("the script did not run as expected (want %q):\n%s", want, all)
	}
	if strings.Contains(all, "FOUND") || strings.Contains(all, cl.secret) {
		t.Fatalf("the app secret is readable by the agent's scripts:\n%s", all)
	}
}

// TestAlarmsOnlyToAllowedAddresses (issue 11, item 6): a webhook naming a
// metadata or loopback address is refused when saved; the e2e alarm test
// allows loopback for its receiver through the configuration.
func TestAlarmsOnlyToAllowedAddresses(t *testing.T) {
	t.Parallel()
	srv := harness.StartServer(t, harness.ServerOptions{})
	c := srv.Client()
	if _, _, err := c.CreateApp("orders"); err != nil {
		t.Fatal(err)
	}
	for _, hook := range []string{"http://169.254.169.254/latest/meta-data/", "http://127.0.0.1:9999/x", "http://[::1]/", "http://10.0.0.1/"} {
		_, err := c.CreateJob(map[string]any{"app": "orders", "name": "x", "scheduleType": "API", "processorType": "SHELL", "processor": "true",
			"alarm": map[string]any{"onFailure": true, "webhooks": []string{hook}}})
		if code(err) != "BAD_INPUT" || fieldOf(err) != "alarm.webhooks" {
			t.Fatalf("webhook %s: %v, want BAD_INPUT on alarm.webhooks", hook, err)
		}
	}
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Fatalf("the console's headers: %v", resp.Header)
	}
}

// TestCSRFBrowser (issue 11, item 3): in Chromium, pages on another port
// of the server's host (same site, so SameSite cookies go along) try to
// create an administrator with the admin's session cookie: a text/plain
// form carrying JSON, a form-encoded query, a no-cors fetch and a GET;
// all are refused, while the server's own origin works.
func TestCSRFBrowser(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	srv := harness.StartServer(t, harness.ServerOptions{})
	runBrowserTest(t, "csrf.test.mjs", chromium, srv)
}
