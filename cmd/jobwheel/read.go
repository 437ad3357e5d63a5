package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/jobwheel/jobwheel/graph/client"
)

// paging are a list's paging flags.
type paging struct {
	limit int
	after string
}

func (p *paging) add(cmd *cobra.Command) {
	cmd.Flags().IntVar(&p.limit, "limit", 50, "how many to show (at most 500)")
	cmd.Flags().StringVar(&p.after, "after", "", "show the page after this cursor (the previous page ends with it)")
}

func (p *paging) vars(v map[string]any) map[string]any {
	v["first"] = p.limit
	if p.after != "" {
		v["after"] = p.after
	}
	return v
}

func (c *cli) readCmds() []*cobra.Command {
	return []*cobra.Command{c.appsCmd(), c.jobsCmd(), c.workflowsCmd(), c.instancesCmd(), c.workersCmd(), c.runsCmd(), c.logsCmd()}
}

func (c *cli) appsCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "apps",
		Short:   "List the apps you may see, with your role on each",
		Example: "  jobwheel apps\n  jobwheel apps -o json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := c.client()
			if err != nil {
				return err
			}
			var out struct {
				Apps []struct {
					Name        string  `json:"name"`
					Description string  `json:"description"`
					MyRole      *string `json:"myRole"`
					Owner       *struct {
						ID string `json:"id"`
					} `json:"owner"`
				} `json:"apps"`
			}
			if err := c.do(cmd.Context(), cl, `{ apps { name description myRole owner { id } } }`, nil, &out); err != nil {
				return err
			}
			var rows [][]string
			for _, a := range out.Apps {
				owner := "-"
				if a.Owner != nil {
					owner = a.Owner.ID
				}
				rows = append(rows, []string{a.Name, orDash(deref(a.MyRole)), owner, a.Description})
			}
			return c.show(out.Apps, []string{"NAME", "ROLE", "SERVER", "DESCRIPTION"}, rows)
		},
	}
}

type jobRow struct {
	ID                 string     `json:"id"`
	Name               string     `json:"name"`
	Enabled            bool       `json:"enabled"`
	ScheduleType       string     `json:"scheduleType"`
	ScheduleExpression string     `json:"scheduleExpression"`
	ProcessorType      string     `json:"processorType"`
	NextTriggerTime    *time.Time `json:"nextTriggerTime"`
	ManagedBy          *string    `json:"managedBy"`
	ManagedSource      *string    `json:"managedSource"`
	LastRun            *struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	} `json:"lastRun"`
}

func managed(by, source *string) string {
	if by == nil {
		return "-"
	}
	return fmt.Sprintf("%s (%s)", *by, strings.ToLower(deref(source)))
}

func (c *cli) jobsCmd() *cobra.Command {
	var p paging
	var search string
	cmd := &cobra.Command{
		Use:   "jobs",
		Short: "List an app's jobs, newest first",
		Example: `  jobwheel jobs --app demo
  jobwheel jobs --search report --limit 10
  jobwheel jobs -o json | jq -r '.items[].name'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, app, err := c.clientApp()
			if err != nil {
				return err
			}
			var out struct {
				Jobs struct {
					TotalCount int
					PageInfo   pageInfo
					Edges      []struct{ Node jobRow }
				}
			}
			err = c.do(cmd.Context(), cl, `query($app: String!, $first: Int, $after: String, $search: String) {
				jobs(app: $app, first: $first, after: $after, search: $search) { totalCount pageInfo { hasNextPage endCursor }
				edges { node { id name enabled scheduleType scheduleExpression processorType nextTriggerTime managedBy managedSource
				lastRun { id status } } } } }`, p.vars(map[string]any{"app": app, "search": nilIfEmpty(search)}), &out)
			if err != nil {
				return err
			}
			items := make([]jobRow, 0, len(out.Jobs.Edges))
			var rows [][]string
			for _, e := range out.Jobs.Edges {
				j := e.Node
				items = append(items, j)
				last := "-"
				if j.LastRun != nil {
					last = j.LastRun.Status + " (" + j.LastRun.ID + ")"
				}
				rows = append(rows, []string{j.ID, j.Name, yesNo(j.Enabled), strings.TrimSpace(j.ScheduleType + " " + j.ScheduleExpression),
					j.ProcessorType, when(j.NextTriggerTime), last, managed(j.ManagedBy, j.ManagedSource)})
			}
			return c.showPage(items, &out.Jobs.TotalCount, out.Jobs.PageInfo,
				[]string{"ID", "NAME", "ENABLED", "SCHEDULE", "PROCESSOR", "NEXT FIRE", "LAST RUN", "MANAGED BY"}, rows)
		},
	}
	cmd.Flags().StringVar(&search, "search", "", "only jobs whose name contains this")
	p.add(cmd)
	return cmd
}

func (c *cli) workflowsCmd() *cobra.Command {
	var p paging
	var search string
	cmd := &cobra.Command{
		Use:     "workflows",
		Short:   "List an app's workflows, newest first",
		Example: "  jobwheel workflows --app demo\n  jobwheel workflows -o yaml",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, app, err := c.clientApp()
			if err != nil {
				return err
			}
			type wfRow struct {
				ID                 string     `json:"id"`
				Name               string     `json:"name"`
				Enabled            bool       `json:"enabled"`
				ScheduleType       string     `json:"scheduleType"`
				ScheduleExpression string     `json:"scheduleExpression"`
				Version            int        `json:"version"`
				NextTriggerTime    *time.Time `json:"nextTriggerTime"`
				ManagedBy          *string    `json:"managedBy"`
				ManagedSource      *string    `json:"managedSource"`
				LastRun            *struct {
					ID     string `json:"id"`
					Status string `json:"status"`
				} `json:"lastRun"`
			}
			var out struct {
				Workflows struct {
					TotalCount int
					PageInfo   pageInfo
					Edges      []struct{ Node wfRow }
				}
			}
			err = c.do(cmd.Context(), cl, `query($app: String!, $first: Int, $after: String, $search: String) {
				workflows(app: $app, first: $first, after: $after, search: $search) { totalCount pageInfo { hasNextPage endCursor }
				edges { node { id name enabled scheduleType scheduleExpression version nextTriggerTime managedBy managedSource
				lastRun { id status } } } } }`, p.vars(map[string]any{"app": app, "search": nilIfEmpty(search)}), &out)
			if err != nil {
				return err
			}
			items := make([]wfRow, 0, len(out.Workflows.Edges))
			var rows [][]string
			for _, e := range out.Workflows.Edges {
				w := e.Node
				items = append(items, w)
				last := "-"
				if w.LastRun != nil {
					last = w.LastRun.Status + " (" + w.LastRun.ID + ")"
				}
				rows = append(rows, []string{w.ID, w.Name, yesNo(w.Enabled), strings.TrimSpace(w.ScheduleType + " " + w.ScheduleExpression),
					strconv.Itoa(w.Version), when(w.NextTriggerTime), last, managed(w.ManagedBy, w.ManagedSource)})
			}
			return c.showPage(items, &out.Workflows.TotalCount, out.Workflows.PageInfo,
				[]string{"ID", "NAME", "ENABLED", "SCHEDULE", "VERSION", "NEXT RUN", "LAST RUN", "MANAGED BY"}, rows)
		},
	}
	cmd.Flags().StringVar(&search, "search", "", "only workflows whose name contains this")
	p.add(cmd)
	return cmd
}

// statusFlag parses --status a,b into the API's list.
func statusList(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.ToUpper(strings.TrimSpace(x)); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func (c *cli) instancesCmd() *cobra.Command {
	var p paging
	var job, status, since string
	cmd := &cobra.Command{
		Use:   "instances",
		Short: "List an app's job instances (runs of jobs), newest first",
		Example: `  jobwheel instances --app demo
  jobwheel instances --job nightly --status FAILED,STOPPED --since 24h
  jobwheel instances -o json --limit 500`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, app, err := c.clientApp()
			if err != nil {
				return err
			}
			vars := p.vars(map[string]any{"app": app})
			if job != "" {
				id, err := c.jobID(cmd.Context(), cl, app, job)
				if err != nil {
					return err
				}
				vars["job"] = id
			}
			if s := statusList(status); s != nil {
				vars["status"] = s
			}
			if since != "" {
				d, err := time.ParseDuration(since)
				if err != nil {
					return usagef("--since %q: give a duration such as 30m or 24h", since)
				}
				vars["from"] = time.Now().Add(-d).UTC().Format(time.RFC3339)
			}
			type instRow struct {
				ID          string     `json:"id"`
				Status      string     `json:"status"`
				Reason      string     `json:"reason"`
				TriggerType string     `json:"triggerType"`
				Attempt     int        `json:"attempt"`
				StartedTime *time.Time `json:"startedTime"`
				Finished    *time.Time `json:"finishedTime"`
				Job         *struct {
					Name string `json:"name"`
				} `json:"job"`
				Worker *struct {
					Host string `json:"host"`
				} `json:"worker"`
			}
			var out struct {
				Instances struct {
					TotalCount int
					PageInfo   pageInfo
					Edges      []struct{ Node instRow }
				}
			}
			err = c.do(cmd.Context(), cl, `query($app: String!, $job: ID, $status: [InstanceStatus!], $from: Time, $first: Int, $after: String) {
				instances(app: $app, jobId: $job, status: $status, from: $from, first: $first, after: $after) {
				totalCount pageInfo { hasNextPage endCursor }
				edges { node { id status reason triggerType attempt startedTime finishedTime job { name } worker { host } } } } }`, vars, &out)
			if err != nil {
				return err
			}
			items := make([]instRow, 0, len(out.Instances.Edges))
			var rows [][]string
			for _, e := range out.Instances.Edges {
				in := e.Node
				items = append(items, in)
				jobName, host := "-", "-"
				if in.Job != nil {
					jobName = in.Job.Name
				}
				if in.Worker != nil {
					host = in.Worker.Host
				}
				rows = append(rows, []string{in.ID, jobName, in.Status, orDash(in.Reason), in.TriggerType, strconv.Itoa(in.Attempt),
					when(in.StartedTime), when(in.Finished), host})
			}
			return c.showPage(items, &out.Instances.TotalCount, out.Instances.PageInfo,
				[]string{"ID", "JOB", "STATUS", "REASON", "TRIGGER", "ATTEMPT", "STARTED", "FINISHED", "WORKER"}, rows)
		},
	}
	cmd.Flags().StringVar(&job, "job", "", "only this job's instances (by name)")
	cmd.Flags().StringVar(&status, "status", "", "only these statuses, comma-separated (WAITING, DISPATCHED, RUNNING, SUCCEEDED, FAILED, STOPPED, CANCELED)")
	cmd.Flags().StringVar(&since, "since", "", "only those triggered within this long, e.g. 1h")
	_ = cmd.RegisterFlagCompletionFunc("job", c.completeJobs)
	p.add(cmd)
	return cmd
}

func (c *cli) workersCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "workers",
		Short:   "List an app's workers: connected ones first, then those lost in the last hour",
		Example: "  jobwheel workers --app demo\n  jobwheel workers -o json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, app, err := c.clientApp()
			if err != nil {
				return err
			}
			var out struct {
				Workers []struct {
					ID            string    `json:"id"`
					Host          string    `json:"host"`
					Tags          []string  `json:"tags"`
					Slots         int       `json:"slots"`
					Alive         bool      `json:"alive"`
					Health        string    `json:"health"`
					LastHeartbeat time.Time `json:"lastHeartbeat"`
					Metrics       struct {
						CPUCores     int     `json:"cpuCores"`
						Load1        float64 `json:"load1"`
						FreeMemoryMB int     `json:"freeMemoryMB"`
					} `json:"metrics"`
				} `json:"workers"`
			}
			if err := c.do(cmd.Context(), cl, `query($app: String!) { workers(app: $app) { id host tags slots alive health lastHeartbeat
				metrics { cpuCores load1 freeMemoryMB } } }`, map[string]any{"app": app}, &out); err != nil {
				return err
			}
			var rows [][]string
			for _, w := range out.Workers {
				rows = append(rows, []string{w.ID, w.Host, w.Health, strconv.Itoa(w.Slots), orDash(strings.Join(w.Tags, ",")),
					fmt.Sprintf("%.2f/%d", w.Metrics.Load1, w.Metrics.CPUCores), strconv.Itoa(w.Metrics.FreeMemoryMB), when(&w.LastHeartbeat)})
			}
			return c.show(out.Workers, []string{"ID", "HOST", "HEALTH", "SLOTS", "TAGS", "LOAD/CORES", "FREE MB", "LAST HEARTBEAT"}, rows)
		},
	}
}

func (c *cli) runsCmd() *cobra.Command {
	var p paging
	var workflow, status string
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List an app's workflow runs, newest first",
		Example: `  jobwheel runs --app demo
  jobwheel runs --workflow nightly --status FAILED`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, app, err := c.clientApp()
			if err != nil {
				return err
			}
			vars := p.vars(map[string]any{"app": app})
			if workflow != "" {
				id, err := c.workflowID(cmd.Context(), cl, app, workflow)
				if err != nil {
					return err
				}
				vars["wf"] = id
			}
			if s := statusList(status); s != nil {
				vars["status"] = s
			}
			type runRow struct {
				ID          string     `json:"id"`
				Status      string     `json:"status"`
				Reason      string     `json:"reason"`
				Version     int        `json:"version"`
				TriggerType string     `json:"triggerType"`
				StartedTime *time.Time `json:"startedTime"`
				Finished    *time.Time `json:"finishedTime"`
				Workflow    struct {
					Name string `json:"name"`
				} `json:"workflow"`
			}
			var out struct {
				WorkflowInstances struct {
					TotalCount int
					PageInfo   pageInfo
					Edges      []struct{ Node runRow }
				}
			}
			err = c.do(cmd.Context(), cl, `query($app: String!, $wf: ID, $status: [WorkflowInstanceStatus!], $first: Int, $after: String) {
				workflowInstances(app: $app, workflowId: $wf, status: $status, first: $first, after: $after) {
				totalCount pageInfo { hasNextPage endCursor }
				edges { node { id status reason version triggerType startedTime finishedTime workflow { name } } } } }`, vars, &out)
			if err != nil {
				return err
			}
			items := make([]runRow, 0, len(out.WorkflowInstances.Edges))
			var rows [][]string
			for _, e := range out.WorkflowInstances.Edges {
				r := e.Node
				items = append(items, r)
				rows = append(rows, []string{r.ID, r.Workflow.Name, strconv.Itoa(r.Version), r.Status, orDash(r.Reason), r.TriggerType,
					when(r.StartedTime), when(r.Finished)})
			}
			return c.showPage(items, &out.WorkflowInstances.TotalCount, out.WorkflowInstances.PageInfo,
				[]string{"ID", "WORKFLOW", "VERSION", "STATUS", "REASON", "TRIGGER", "STARTED", "FINISHED"}, rows)
		},
	}
	cmd.Flags().StringVar(&workflow, "workflow", "", "only this workflow's runs (by name)")
	cmd.Flags().StringVar(&status, "status", "", "only these statuses, comma-separated (WAITING, RUNNING, PAUSED, SUCCEEDED, FAILED, STOPPED, CANCELED)")
	p.add(cmd)
	return cmd
}

func (c *cli) logsCmd() *cobra.Command {
	var follow bool
	cmd := &cobra.Command{
		Use:   "logs INSTANCE",
		Short: "Print an instance's log; with --follow, until it finishes",
		Long: `Print a job instance's log lines (their text, one per line). With --follow,
new lines are printed as they are stored until the instance finishes, and
the exit code is its outcome: 0 SUCCEEDED, 3 FAILED, 4 STOPPED or CANCELED.`,
		Example: "  jobwheel logs 4211\n  jobwheel logs 4211 --follow",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := c.client()
			if err != nil {
				return err
			}
			if follow {
				return c.follow(cmd.Context(), cl, args[0])
			}
			after := 0
			for {
				var out struct {
					Instance *struct {
						Logs struct {
							Lines []struct {
								Seq  int
								Text string
							}
							HasMore bool
						}
					}
				}
				if err := c.do(cmd.Context(), cl, `query($id: ID!, $after: Int) { instance(id: $id) { logs(afterSeq: $after, first: 1000) {
					lines { seq text } hasMore } } }`, map[string]any{"id": args[0], "after": after}, &out); err != nil {
					return err
				}
				if out.Instance == nil {
					return fmt.Errorf("no instance %s", args[0])
				}
				for _, l := range out.Instance.Logs.Lines {
					fmt.Fprintln(c.stdout, l.Text)
					after = l.Seq
				}
				if !out.Instance.Logs.HasMore || len(out.Instance.Logs.Lines) == 0 {
					return nil
				}
			}
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "print new lines until the instance finishes, and exit with its outcome")
	return cmd
}

// clientApp is the client and the app a command acts on.
func (c *cli) clientApp() (*client.Client, string, error) {
	app, err := c.appName()
	if err != nil {
		return nil, "", err
	}
	cl, err := c.client()
	return cl, app, err
}

// jobID finds an app's job by name.
func (c *cli) jobID(ctx context.Context, cl *client.Client, app, name string) (string, error) {
	var out struct {
		Jobs struct {
			Edges []struct{ Node struct{ ID, Name string } }
		}
	}
	if err := c.do(ctx, cl, `query($app: String!, $s: String) { jobs(app: $app, search: $s, first: 500) { edges { node { id name } } } }`,
		map[string]any{"app": app, "s": name}, &out); err != nil {
		return "", err
	}
	for _, e := range out.Jobs.Edges {
		if e.Node.Name == name {
			return e.Node.ID, nil
		}
	}
	return "", fmt.Errorf("app %q has no job named %q (jobwheel jobs --app %s lists them)", app, name, app)
}

// workflowID finds an app's workflow by name.
func (c *cli) workflowID(ctx context.Context, cl *client.Client, app, name string) (string, error) {
	var out struct {
		Workflows struct {
			Edges []struct{ Node struct{ ID, Name string } }
		}
	}
	if err := c.do(ctx, cl, `query($app: String!, $s: String) { workflows(app: $app, search: $s, first: 500) { edges { node { id name } } } }`,
		map[string]any{"app": app, "s": name}, &out); err != nil {
		return "", err
	}
	for _, e := range out.Workflows.Edges {
		if e.Node.Name == name {
			return e.Node.ID, nil
		}
	}
	return "", fmt.Errorf("app %q has no workflow named %q (jobwheel workflows --app %s lists them)", app, name, app)
}

func (c *cli) completeJobs(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	return c.completeNames(cmd, `query($app: String!) { jobs(app: $app, first: 500) { edges { node { name } } } }`, "jobs")
}

func (c *cli) completeWorkflows(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	return c.completeNames(cmd, `query($app: String!) { workflows(app: $app, first: 500) { edges { node { name } } } }`, "workflows")
}

func (c *cli) completeNames(cmd *cobra.Command, query, field string) ([]string, cobra.ShellCompDirective) {
	cl, app, err := c.clientApp()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out map[string]struct {
		Edges []struct{ Node struct{ Name string } }
	}
	if err := c.do(cmd.Context(), cl, query, map[string]any{"app": app}, &out); err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, e := range out[field].Edges {
		names = append(names, e.Node.Name)
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
