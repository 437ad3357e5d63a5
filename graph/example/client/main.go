// Command client is a small jobwheel API client to copy into another
// service: it logs in (or uses an API token), creates a SHELL job (or
// reuses one of the same name), runs it, and prints its log lines live
// over the instanceLogs subscription, resuming after a dropped connection
// without missing or repeating a line. It exits 0 if the run succeeded.
//
//	JOBWHEEL_URL=http://localhost:7700 JOBWHEEL_TOKEN=jwt_… \
//	  go run ./graph/example/client -app demo -job hello -script 'echo hello; sleep 1; echo bye'
//
// Without JOBWHEEL_TOKEN it logs in as JOBWHEEL_USER (default admin) with
// JOBWHEEL_PASSWORD. It needs only the standard library and
// github.com/coder/websocket.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/coder/websocket"
)

func main() {
	var (
		app    = flag.String("app", os.Getenv("JOBWHEEL_APP"), "the app (JOBWHEEL_APP)")
		job    = flag.String("job", "example-client", "the job's name; created if the app has none of that name")
		script = flag.String("script", "for i in 1 2 3; do echo \"line $i\"; sleep 0.2; done", "the SHELL script of a job it creates")
		params = flag.String("params", "", "parameters of this run")
	)
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *app, *job, *script, *params); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, app, jobName, script, params string) error {
	if app == "" {
		return errors.New("name the app with -app or JOBWHEEL_APP")
	}
	c := &client{url: strings.TrimRight(env("JOBWHEEL_URL", "http://localhost:7700"), "/") + "/graphql", token: os.Getenv("JOBWHEEL_TOKEN")}
	if c.token == "" {
		var out struct{ Login struct{ Token string } }
		err := c.do(ctx, `mutation($u: String!, $p: String!) { login(username: $u, password: $p) { token } }`,
			map[string]any{"u": env("JOBWHEEL_USER", "admin"), "p": os.Getenv("JOBWHEEL_PASSWORD")}, &out)
		if err != nil {
			return fmt.Errorf("logging in: %w", err)
		}
		c.token = out.Login.Token
	}

	// Find the job by name, or create it.
	var jobs struct {
		Jobs struct {
			Edges []struct{ Node struct{ ID, Name string } }
		}
	}
	if err := c.do(ctx, `query($app: String!, $name: String!) { jobs(app: $app, search: $name, first: 100) { edges { node { id name } } } }`,
		map[string]any{"app": app, "name": jobName}, &jobs); err != nil {
		return err
	}
	jobID := ""
	for _, e := range jobs.Jobs.Edges {
		if e.Node.Name == jobName {
			jobID = e.Node.ID
		}
	}
	if jobID == "" {
		var created struct{ CreateJob struct{ ID string } }
		err := c.do(ctx, `mutation($in: JobInput!) { createJob(input: $in) { id } }`, map[string]any{"in": map[string]any{
			"app": app, "name": jobName, "scheduleType": "API", "processorType": "SHELL", "processor": script, "timeoutMs": 600000}}, &created)
		if err != nil {
			return fmt.Errorf("creating job %s: %w", jobName, err)
		}
		jobID = created.CreateJob.ID
		fmt.Printf("created job %s (id %s)\n", jobName, jobID)
	}

	var ran struct{ RunJob struct{ ID string } }
	if err := c.do(ctx, `mutation($id: ID!, $p: String) { runJob(id: $id, params: $p) { id } }`,
		map[string]any{"id": jobID, "p": params}, &ran); err != nil {
		return fmt.Errorf("running job: %w", err)
	}
	instanceID := ran.RunJob.ID
	fmt.Printf("running instance %s\n", instanceID)

	// Follow the log; after a dropped connection, resubscribe from the
	// last seq received, so no line is missed or printed twice.
	var last int64
	for attempt := 0; ; attempt++ {
		err := c.followLogs(ctx, instanceID, &last)
		if err == nil {
			break // the instance finished and every line was printed
		}
		var gql graphqlErrors
		if errors.As(err, &gql) && gql.code() != "SLOW_CONSUMER" && gql.code() != "UNAVAILABLE" {
			return err // not worth retrying: refused, not found…
		}
		if ctx.Err() != nil || attempt >= 10 {
			return err
		}
		fmt.Fprintf(os.Stderr, "log stream interrupted (%v); resuming after line %d\n", err, last)
		time.Sleep(time.Duration(attempt+1) * 500 * time.Millisecond)
	}

	var done struct {
		Instance struct{ Status, Result string }
	}
	if err := c.do(ctx, `query($id: ID!) { instance(id: $id) { status result } }`, map[string]any{"id": instanceID}, &done); err != nil {
		return err
	}
	fmt.Printf("instance %s finished: %s %s\n", instanceID, done.Instance.Status, done.Instance.Result)
	if done.Instance.Status != "SUCCEEDED" {
		return fmt.Errorf("the run did not succeed (%s)", done.Instance.Status)
	}
	return nil
}

// client speaks GraphQL over HTTP (queries, mutations) and websocket
// (subscriptions, graphql-transport-ws).
type client struct {
	url   string
	token string
}

type graphqlErrors []struct {
	Message    string         `json:"message"`
	Extensions map[string]any `json:"extensions"`
}

func (e graphqlErrors) Error() string {
	msgs := make([]string, len(e))
	for i, x := range e {
		msgs[i] = fmt.Sprintf("%s (%v)", x.Message, x.Extensions["code"])
	}
	return strings.Join(msgs, "; ")
}

func (e graphqlErrors) code() string {
	if len(e) == 0 {
		return ""
	}
	s, _ := e[0].Extensions["code"].(string)
	return s
}

// do runs a query or mutation and decodes its data into out.
func (c *client) do(ctx context.Context, query string, vars map[string]any, out any) error {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var r struct {
		Data   json.RawMessage `json:"data"`
		Errors graphqlErrors   `json:"errors"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, raw)
	}
	if len(r.Errors) > 0 {
		return r.Errors
	}
	return json.Unmarshal(r.Data, out)
}

type wsMessage struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// followLogs prints the instance's log lines after *last until the stream
// completes (nil), updating *last as lines arrive.
func (c *client) followLogs(ctx context.Context, instanceID string, last *int64) error {
	url := strings.Replace(strings.Replace(c.url, "http://", "ws://", 1), "https://", "wss://", 1)
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}}) //nolint:bodyclose // coder/websocket: the response body never needs closing
	if err != nil {
		return err
	}
	defer ws.CloseNow()
	send := func(m any) error {
		b, _ := json.Marshal(m)
		return ws.Write(ctx, websocket.MessageText, b)
	}
	if err := send(map[string]any{"type": "connection_init", "payload": map[string]string{"Authorization": "Bearer " + c.token}}); err != nil {
		return err
	}
	if err := send(map[string]any{"id": "1", "type": "subscribe", "payload": map[string]any{
		"query":     `subscription($id: ID!, $after: Int) { instanceLogs(instanceId: $id, afterSeq: $after) { seq time level text } }`,
		"variables": map[string]any{"id": instanceID, "after": *last},
	}}); err != nil {
		return err
	}
	for {
		_, b, err := ws.Read(ctx)
		if err != nil {
			return err // includes a refused connection_init (close code 4403)
		}
		var m wsMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		switch m.Type {
		case "ping": // the server's keep-alive: answer, or be disconnected
			if err := send(map[string]any{"type": "pong"}); err != nil {
				return err
			}
		case "next":
			var r struct {
				Data struct {
					InstanceLogs struct {
						Seq         int64
						Time        time.Time
						Level, Text string
					}
				}
				Errors graphqlErrors
			}
			if err := json.Unmarshal(m.Payload, &r); err != nil {
				return err
			}
			if len(r.Errors) > 0 {
				return r.Errors
			}
			l := r.Data.InstanceLogs
			fmt.Printf("%5d %s %-5s %s\n", l.Seq, l.Time.Local().Format("15:04:05.000"), l.Level, l.Text)
			*last = l.Seq
		case "error":
			var errs graphqlErrors
			_ = json.Unmarshal(m.Payload, &errs)
			return errs
		case "complete":
			_ = ws.Close(websocket.StatusNormalClosure, "")
			return nil
		}
	}
}

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
