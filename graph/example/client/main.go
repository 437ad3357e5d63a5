// Command client shows jobwheel's Go API client (package graph/client) at
// work, as another service would use it: it logs in (or uses an API
// token), creates a SHELL job (or reuses one of the same name), runs it,
// and prints its log lines live over the instanceLogs subscription,
// resuming after a dropped connection without missing or repeating a line.
// It exits 0 if the run succeeded.
//
//	JOBWHEEL_URL=http://localhost:7700 JOBWHEEL_TOKEN=jwt_… \
//	  go run ./graph/example/client -app demo -job hello -script 'echo hello; sleep 1; echo bye'
//
// Without JOBWHEEL_TOKEN it logs in as JOBWHEEL_USER (default admin) with
// JOBWHEEL_PASSWORD.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/jobwheel/jobwheel/graph/client"
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
	c := client.New(env("JOBWHEEL_URL", "http://localhost:7700"))
	c.Token = os.Getenv("JOBWHEEL_TOKEN")
	if c.Token == "" {
		if err := c.Login(env("JOBWHEEL_USER", "admin"), os.Getenv("JOBWHEEL_PASSWORD")); err != nil {
			return fmt.Errorf("logging in: %w", err)
		}
	}

	// Find the job by name, or create it.
	var jobs struct {
		Jobs struct {
			Edges []struct{ Node struct{ ID, Name string } }
		}
	}
	if err := c.DoContext(ctx, `query($app: String!, $name: String!) { jobs(app: $app, search: $name, first: 100) { edges { node { id name } } } }`,
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
		err := c.DoContext(ctx, `mutation($in: JobInput!) { createJob(input: $in) { id } }`, map[string]any{"in": map[string]any{
			"app": app, "name": jobName, "scheduleType": "API", "processorType": "SHELL", "processor": script, "timeoutMs": 600000}}, &created)
		if err != nil {
			return fmt.Errorf("creating job %s: %w", jobName, err)
		}
		jobID = created.CreateJob.ID
		fmt.Printf("created job %s (id %s)\n", jobName, jobID)
	}

	var ran struct{ RunJob struct{ ID string } }
	if err := c.DoContext(ctx, `mutation($id: ID!, $p: String) { runJob(id: $id, params: $p) { id } }`,
		map[string]any{"id": jobID, "p": params}, &ran); err != nil {
		return fmt.Errorf("running job: %w", err)
	}
	instanceID := ran.RunJob.ID
	fmt.Printf("running instance %s\n", instanceID)

	// Follow the log; after a dropped connection, resubscribe from the
	// last seq received, so no line is missed or printed twice.
	var last int64
	for attempt := 0; ; attempt++ {
		err := followLogs(ctx, c, instanceID, &last)
		if err == nil {
			break // the instance finished and every line was printed
		}
		var gql client.Errors
		if errors.As(err, &gql) && gql.Code() != "SLOW_CONSUMER" && gql.Code() != "UNAVAILABLE" {
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
	if err := c.DoContext(ctx, `query($id: ID!) { instance(id: $id) { status result } }`, map[string]any{"id": instanceID}, &done); err != nil {
		return err
	}
	fmt.Printf("instance %s finished: %s %s\n", instanceID, done.Instance.Status, done.Instance.Result)
	if done.Instance.Status != "SUCCEEDED" {
		return fmt.Errorf("the run did not succeed (%s)", done.Instance.Status)
	}
	return nil
}

// followLogs prints the instance's log lines after *last until the stream
// completes (nil), updating *last as lines arrive.
func followLogs(ctx context.Context, c *client.Client, instanceID string, last *int64) error {
	conn, sub, err := c.Subscribe(ctx, `subscription($id: ID!, $after: Int) { instanceLogs(instanceId: $id, afterSeq: $after) { seq time level text } }`,
		map[string]any{"id": instanceID, "after": *last})
	if err != nil {
		return err // includes a refused connection_init (close code 4403)
	}
	defer conn.Close()
	for {
		data, err := sub.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil // the instance finished and every line was sent
		}
		if err != nil {
			return err
		}
		var r struct {
			InstanceLogs struct {
				Seq         int64
				Time        time.Time
				Level, Text string
			}
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return err
		}
		l := r.InstanceLogs
		fmt.Printf("%5d %s %-5s %s\n", l.Seq, l.Time.Local().Format("15:04:05.000"), l.Level, l.Text)
		*last = l.Seq
	}
}

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
