package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/jobwheel/jobwheel/graph/client"
	"github.com/jobwheel/jobwheel/internal/clock"
)

func (c *cli) actCmds() []*cobra.Command {
	return []*cobra.Command{c.runCmd(), c.workflowCmd(), c.stopCmd(), c.retryCmd(), c.rerunCmd(), c.approveCmd(),
		c.enableCmd(true), c.enableCmd(false)}
}

// outcome is the exit code of an ended instance or run.
func outcome(status string) int {
	switch status {
	case "SUCCEEDED":
		return exitOK
	case "FAILED":
		return exitFailed
	}
	return exitStopped
}

// finished says whether an instance or run status is final.
func finished(status string) bool {
	switch status {
	case "SUCCEEDED", "FAILED", "STOPPED", "CANCELED":
		return true
	}
	return false
}

func (c *cli) runCmd() *cobra.Command {
	var params, key string
	var param []string
	var follow bool
	var delay time.Duration
	cmd := &cobra.Command{
		Use:   "run JOB",
		Short: "Run a job now; with --follow, stream its log and exit with its outcome",
		Long: `Run a job of the app now (or after --delay), with the job's parameters or
others. Prints the new instance's id.

With --follow, the instance's log is streamed live (each line's text on
standard output) until the instance finishes, and the exit code is its
outcome: 0 SUCCEEDED, 3 FAILED, 4 STOPPED or CANCELED, 1 if it could not
be followed. A pipeline can wait on it.

--param key=value (repeated) sends the parameters as a JSON object of
strings; --params sends them as they are.`,
		Example: `  jobwheel run nightly-report --app billing
  jobwheel run nightly-report --follow
  jobwheel run import --param customer=42 --param dryRun=true --follow
  jobwheel run import --params '{"customer": 42}' --idempotency-key deploy-1234`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: c.completeJobs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, app, err := c.clientApp()
			if err != nil {
				return err
			}
			vars := map[string]any{}
			switch {
			case params != "" && len(param) > 0:
				return usagef("give --params or --param, not both")
			case params != "":
				vars["params"] = params
			case len(param) > 0:
				obj := map[string]string{}
				for _, kv := range param {
					k, v, ok := strings.Cut(kv, "=")
					if !ok || k == "" {
						return usagef("--param %q: write key=value", kv)
					}
					obj[k] = v
				}
				b, _ := json.Marshal(obj)
				vars["params"] = string(b)
			}
			if delay > 0 {
				vars["delay"] = delay.Milliseconds()
			}
			if key != "" {
				vars["key"] = key
			}
			id, err := c.jobID(cmd.Context(), cl, app, args[0])
			if err != nil {
				return err
			}
			vars["id"] = id
			var out struct {
				RunJob struct {
					ID     string `json:"id"`
					Status string `json:"status"`
				} `json:"runJob"`
			}
			if err := c.do(cmd.Context(), cl, `mutation($id: ID!, $params: String, $delay: Int, $key: String) {
				runJob(id: $id, params: $params, delayMs: $delay, idempotencyKey: $key) { id status } }`, vars, &out); err != nil {
				return err
			}
			if !follow {
				if c.output != "table" {
					return c.show(out.RunJob, nil, nil)
				}
				fmt.Fprintln(c.stdout, out.RunJob.ID)
				return nil
			}
			fmt.Fprintf(c.stderr, "instance %s of job %s: following its log\n", out.RunJob.ID, args[0])
			return c.follow(cmd.Context(), cl, out.RunJob.ID)
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&param, "param", "p", nil, "a parameter as key=value (repeat for more); sent as a JSON object")
	f.StringVar(&params, "params", "", "the parameters as they are (e.g. JSON), in place of the job's")
	f.BoolVarP(&follow, "follow", "f", false, "stream the log until the instance finishes, and exit with its outcome")
	f.DurationVar(&delay, "delay", 0, "run after this long (e.g. 10m) instead of now")
	f.StringVar(&key, "idempotency-key", "", "a key that makes a repeated call within 24 hours return the first call's instance")
	return cmd
}

// logFollowQuery is the instance's log from a line on, live.
const logFollowQuery = `subscription($id: ID!, $after: Int) { instanceLogs(instanceId: $id, afterSeq: $after) { seq text } }`

// follow streams an instance's log to stdout until it finished and every
// line was printed, then ends with the instance's outcome. A stream cut
// (the server restarting, a slow terminal) is resumed from the last line
// printed, so no line is missed or repeated.
func (c *cli) follow(ctx context.Context, cl *client.Client, id string) error {
	after, failures := 0, 0
	for {
		done, err := c.followOnce(ctx, cl, id, &after)
		if done {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var gqlErrs client.Errors
		var closed *client.CloseError
		if errors.As(err, &gqlErrs) && gqlErrs.Code() != "SLOW_CONSUMER" && gqlErrs.Code() != "UNAVAILABLE" {
			return err
		}
		if errors.As(err, &closed) && closed.Code == 4403 {
			return fmt.Errorf("the server refused the token for the live log: run jobwheel login")
		}
		failures++
		if failures > 10 {
			return fmt.Errorf("following instance %s: the stream kept breaking: %w", id, err)
		}
		fmt.Fprintf(c.stderr, "the log stream broke (%v); resuming after line %d\n", err, after)
		if !clock.Sleep(clock.System(), time.Duration(failures)*500*time.Millisecond, ctx.Done()) {
			return ctx.Err()
		}
	}
	var out struct {
		Instance *struct {
			Status string
			Reason string
			Result string
		}
	}
	if err := c.do(ctx, cl, `query($id: ID!) { instance(id: $id) { status reason result } }`, map[string]any{"id": id}, &out); err != nil {
		return err
	}
	if out.Instance == nil {
		return fmt.Errorf("instance %s is gone (its job was deleted)", id)
	}
	in := out.Instance
	msg := fmt.Sprintf("instance %s %s", id, in.Status)
	if in.Reason != "" {
		msg += " (" + in.Reason + ")"
	}
	if in.Result != "" && in.Status != "SUCCEEDED" {
		msg += ": " + in.Result
	}
	fmt.Fprintln(c.stderr, msg)
	if code := outcome(in.Status); code != exitOK {
		return &exitCode{code: code}
	}
	return nil
}

// followOnce follows one subscription; done means the log is complete.
func (c *cli) followOnce(ctx context.Context, cl *client.Client, id string, after *int) (done bool, err error) {
	conn, sub, err := cl.Subscribe(ctx, logFollowQuery, map[string]any{"id": id, "after": *after})
	if err != nil {
		return false, err
	}
	defer conn.Close()
	for {
		data, err := sub.Next(ctx)
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		var v struct {
			InstanceLogs struct {
				Seq  int
				Text string
			}
		}
		if err := json.Unmarshal(data, &v); err != nil {
			return false, err
		}
		if v.InstanceLogs.Seq <= *after {
			continue
		}
		fmt.Fprintln(c.stdout, v.InstanceLogs.Text)
		*after = v.InstanceLogs.Seq
	}
}

func (c *cli) workflowCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "workflow",
		Aliases: []string{"wf"},
		Short:   "Run a workflow and watch its runs",
		Example: "  jobwheel workflow run nightly --watch\n  jobwheel workflow watch 812",
	}
	var ctxJSON, key string
	var watch bool
	runCmd := &cobra.Command{
		Use:   "run NAME",
		Short: "Run a workflow now; with --watch, show its nodes live and exit with its outcome",
		Long: `Record a run of the workflow's current version, due now, with an initial
context (a JSON object). Prints the run's id.

With --watch, the run's nodes are shown as they change until the run ends,
and the exit code is its outcome: 0 SUCCEEDED, 3 FAILED, 4 STOPPED or
CANCELED.`,
		Example: `  jobwheel workflow run nightly --app billing
  jobwheel workflow run nightly --context '{"date": "2026-11-27"}' --watch`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: c.completeWorkflows,
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, app, err := c.clientApp()
			if err != nil {
				return err
			}
			vars := map[string]any{}
			if ctxJSON != "" {
				var v any
				if err := json.Unmarshal([]byte(ctxJSON), &v); err != nil {
					return usagef("--context: not JSON: %v", err)
				}
				vars["ctx"] = v
			}
			if key != "" {
				vars["key"] = key
			}
			if vars["id"], err = c.workflowID(cmd.Context(), cl, app, args[0]); err != nil {
				return err
			}
			var out struct {
				RunWorkflow struct {
					ID     string `json:"id"`
					Status string `json:"status"`
				} `json:"runWorkflow"`
			}
			if err := c.do(cmd.Context(), cl, `mutation($id: ID!, $ctx: JSON, $key: String) { runWorkflow(id: $id, context: $ctx, idempotencyKey: $key) { id status } }`,
				vars, &out); err != nil {
				return err
			}
			if !watch {
				if c.output != "table" {
					return c.show(out.RunWorkflow, nil, nil)
				}
				fmt.Fprintln(c.stdout, out.RunWorkflow.ID)
				return nil
			}
			fmt.Fprintf(c.stderr, "run %s of workflow %s\n", out.RunWorkflow.ID, args[0])
			return c.watch(cmd.Context(), cl, out.RunWorkflow.ID)
		},
	}
	runCmd.Flags().StringVar(&ctxJSON, "context", "", "the run's initial context, a JSON object")
	runCmd.Flags().BoolVarP(&watch, "watch", "w", false, "show the nodes live until the run ends, and exit with its outcome")
	runCmd.Flags().StringVar(&key, "idempotency-key", "", "a key that makes a repeated call within 24 hours return the first call's run")
	watchCmd := &cobra.Command{
		Use:     "watch RUN",
		Short:   "Show a workflow run's nodes live until it ends, and exit with its outcome",
		Example: "  jobwheel workflow watch 812",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := c.client()
			if err != nil {
				return err
			}
			return c.watch(cmd.Context(), cl, args[0])
		},
	}
	cmd.AddCommand(runCmd, watchCmd)
	return cmd
}

type runState struct {
	ID     string
	Status string
	Reason string
	Nodes  []struct {
		Key     string
		Type    string
		Status  string
		Reason  string
		Message string
	}
}

// watch shows a run's nodes as they change until the run ends, then ends
// with its outcome. On a terminal the node table is redrawn in place;
// otherwise each change is one line.
func (c *cli) watch(ctx context.Context, cl *client.Client, id string) error {
	tty := isTerminalOut(c.stdout)
	seen := map[string]string{}
	drawn := 0
	for failures := 0; ; {
		conn, sub, err := cl.Subscribe(ctx, `subscription($id: ID!) { workflowInstanceUpdated(id: $id) {
			id status reason nodes { key type status reason message } } }`, map[string]any{"id": id})
		if err != nil {
			return err
		}
		for {
			data, err := sub.Next(ctx)
			if err != nil {
				conn.Close()
				var gqlErrs client.Errors
				if ctx.Err() != nil || (errors.As(err, &gqlErrs) && gqlErrs.Code() == "NOT_FOUND") {
					return err
				}
				if failures++; failures > 10 {
					return fmt.Errorf("watching run %s: the stream kept breaking: %w", id, err)
				}
				fmt.Fprintf(c.stderr, "the run's stream broke (%v); watching again\n", err)
				break
			}
			var v struct{ WorkflowInstanceUpdated runState }
			if err := json.Unmarshal(data, &v); err != nil {
				conn.Close()
				return err
			}
			r := v.WorkflowInstanceUpdated
			if tty {
				drawn = c.drawRun(r, drawn)
			} else {
				c.printChanges(r, seen)
			}
			if finished(r.Status) {
				conn.Close()
				msg := fmt.Sprintf("run %s %s", id, r.Status)
				if r.Reason != "" {
					msg += " (" + r.Reason + ")"
				}
				fmt.Fprintln(c.stderr, msg)
				if code := outcome(r.Status); code != exitOK {
					return &exitCode{code: code}
				}
				return nil
			}
		}
	}
}

// printChanges prints one line per node whose status changed.
func (c *cli) printChanges(r runState, seen map[string]string) {
	now := time.Now().Format("15:04:05")
	for _, n := range r.Nodes {
		if seen[n.Key] == n.Status {
			continue
		}
		seen[n.Key] = n.Status
		line := fmt.Sprintf("%s  %-20s %-10s %s", now, n.Key, n.Type, n.Status)
		if n.Reason != "" {
			line += " (" + n.Reason + ")"
		}
		fmt.Fprintln(c.stdout, line)
	}
	if seen["\x00run"] != r.Status {
		seen["\x00run"] = r.Status
		fmt.Fprintf(c.stdout, "%s  run %s %s\n", now, r.ID, r.Status)
	}
}

// drawRun redraws the node table in place (ANSI cursor movement) and
// returns how many lines it drew.
func (c *cli) drawRun(r runState, drawn int) int {
	var b strings.Builder
	if drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", drawn)
	}
	line := func(s string) { b.WriteString("\x1b[2K" + s + "\n") }
	line(fmt.Sprintf("run %s: %s", r.ID, r.Status))
	for _, n := range r.Nodes {
		s := fmt.Sprintf("  %-20s %-10s %s", n.Key, n.Type, n.Status)
		if n.Reason != "" {
			s += " (" + n.Reason + ")"
		}
		line(s)
	}
	fmt.Fprint(c.stdout, b.String())
	return len(r.Nodes) + 1
}

func (c *cli) stopCmd() *cobra.Command {
	var runFlag bool
	cmd := &cobra.Command{
		Use:   "stop ID",
		Short: "Stop a job instance (or, with --run, a workflow run)",
		Example: `  jobwheel stop 4211
  jobwheel stop 812 --run`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runFlag {
				return c.mutateRun(cmd.Context(), `mutation($id: ID!) { r: stopWorkflowInstance(id: $id) { id status } }`, map[string]any{"id": args[0]})
			}
			return c.mutateInstance(cmd.Context(), `mutation($id: ID!) { r: stopInstance(id: $id) { id status } }`, args[0])
		},
	}
	cmd.Flags().BoolVar(&runFlag, "run", false, "ID is a workflow run's")
	return cmd
}

func (c *cli) retryCmd() *cobra.Command {
	var runFlag bool
	cmd := &cobra.Command{
		Use:   "retry ID",
		Short: "Run a FAILED, STOPPED or CANCELED instance again (or, with --run, a workflow run's failed nodes)",
		Example: `  jobwheel retry 4211
  jobwheel retry 812 --run`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runFlag {
				return c.mutateRun(cmd.Context(), `mutation($id: ID!) { r: retryWorkflowInstance(id: $id) { id status } }`, map[string]any{"id": args[0]})
			}
			return c.mutateInstance(cmd.Context(), `mutation($id: ID!) { r: retryInstance(id: $id) { id status } }`, args[0])
		},
	}
	cmd.Flags().BoolVar(&runFlag, "run", false, "ID is a workflow run's")
	return cmd
}

func (c *cli) rerunCmd() *cobra.Command {
	var downstream bool
	cmd := &cobra.Command{
		Use:   "rerun RUN NODE",
		Short: "Run a workflow run's node again (with --downstream, and everything after it)",
		Example: `  jobwheel rerun 812 load
  jobwheel rerun 812 extract --downstream`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.mutateRun(cmd.Context(), `mutation($id: ID!, $node: String!, $down: Boolean!) {
				r: rerunWorkflowNode(workflowInstanceId: $id, node: $node, downstream: $down) { id status } }`,
				map[string]any{"id": args[0], "node": args[1], "down": downstream})
		},
	}
	cmd.Flags().BoolVar(&downstream, "downstream", false, "rerun the nodes after it too")
	return cmd
}

func (c *cli) approveCmd() *cobra.Command {
	var reject bool
	var comment string
	cmd := &cobra.Command{
		Use:   "approve RUN NODE",
		Short: "Approve (or, with --reject, reject) a workflow run's APPROVAL node",
		Example: `  jobwheel approve 812 sign-off --comment "numbers checked"
  jobwheel approve 812 sign-off --reject --comment "totals are off"`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			vars := map[string]any{"id": args[0], "node": args[1], "ok": !reject}
			if comment != "" {
				vars["comment"] = comment
			}
			return c.mutateRun(cmd.Context(), `mutation($id: ID!, $node: String!, $ok: Boolean!, $comment: String) {
				r: approveWorkflowNode(workflowInstanceId: $id, node: $node, approve: $ok, comment: $comment) { id status } }`, vars)
		},
	}
	cmd.Flags().BoolVar(&reject, "reject", false, "reject instead of approving")
	cmd.Flags().StringVar(&comment, "comment", "", "a comment kept with the decision")
	return cmd
}

func (c *cli) enableCmd(enable bool) *cobra.Command {
	var workflow bool
	verb, use := "Enable", "enable"
	if !enable {
		verb, use = "Disable", "disable"
	}
	cmd := &cobra.Command{
		Use:   use + " NAME",
		Short: verb + " a job's schedule (or, with --workflow, a workflow's)",
		Long: verb + ` a job's schedule (or, with --workflow, a workflow's), by name. A
disabled job does not fire on schedule; jobwheel run still runs it. A job
managed by a file set is enabled again by the next apply unless its file
says enabled: false; jobwheel import keeps the state it finds.`,
		Example: fmt.Sprintf("  jobwheel %s nightly-report --app billing\n  jobwheel %s nightly --workflow", use, use),
		Args:    cobra.ExactArgs(1),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, s string) ([]string, cobra.ShellCompDirective) {
			if workflow {
				return c.completeWorkflows(cmd, args, s)
			}
			return c.completeJobs(cmd, args, s)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, app, err := c.clientApp()
			if err != nil {
				return err
			}
			var id, query string
			if workflow {
				id, err = c.workflowID(cmd.Context(), cl, app, args[0])
				query = `mutation($id: ID!, $on: Boolean!) { r: setWorkflowEnabled(id: $id, enabled: $on) { id name enabled } }`
			} else {
				id, err = c.jobID(cmd.Context(), cl, app, args[0])
				query = `mutation($id: ID!, $on: Boolean!) { r: setJobEnabled(id: $id, enabled: $on) { id name enabled } }`
			}
			if err != nil {
				return err
			}
			var out struct {
				R struct {
					ID      string `json:"id"`
					Name    string `json:"name"`
					Enabled bool   `json:"enabled"`
				}
			}
			if err := c.do(cmd.Context(), cl, query, map[string]any{"id": id, "on": enable}, &out); err != nil {
				return err
			}
			if c.output != "table" {
				return c.show(out.R, nil, nil)
			}
			fmt.Fprintf(c.stderr, "%s %sd\n", args[0], use)
			return nil
		},
	}
	cmd.Flags().BoolVar(&workflow, "workflow", false, "NAME is a workflow's")
	return cmd
}

// mutateInstance runs a mutation on an instance (aliased r) and prints
// its new status.
func (c *cli) mutateInstance(ctx context.Context, query, id string) error {
	return c.mutateRun(ctx, query, map[string]any{"id": id})
}

// mutateRun runs a mutation whose result (aliased r) has id and status,
// and prints them.
func (c *cli) mutateRun(ctx context.Context, query string, vars map[string]any) error {
	cl, err := c.client()
	if err != nil {
		return err
	}
	var out struct {
		R struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		}
	}
	if err := c.do(ctx, cl, query, vars, &out); err != nil {
		return err
	}
	if c.output != "table" {
		return c.show(out.R, nil, nil)
	}
	fmt.Fprintf(c.stdout, "%s %s\n", out.R.ID, out.R.Status)
	return nil
}
