package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/graph/client"
	"github.com/jobwheel/jobwheel/graph/generated"
	"github.com/jobwheel/jobwheel/server/api/auth"
)

// The authorization matrix (issue 19, item 3): every root operation of
// the schema — query, mutation and subscription, listed from the schema
// the server serves, so an operation added without a row fails the test —
// called by every kind of caller, each answer checked: allowed, or the
// exact error code. The objects are app "alpha"'s; the caller "beta-owner"
// (OWNER of app "beta" only) and the token narrowed to "beta" use alpha's
// ids and names, and a few rows more name beta while passing alpha's ids.

// need is the right an operation needs.
type need int

const (
	needPublic need = iota // anyone, even anonymous
	needCaller             // any authenticated caller
	needAdmin              // a global administrator
	needViewer             // VIEWER on alpha
	needEditor             // EDITOR on alpha
	needOwner              // OWNER on alpha
)

// matrixCaller is one kind of caller.
type matrixCaller struct {
	name string
	// user logs in afresh for each row (a session caller); token is used
	// as it is (API tokens, the revoked one, anonymous: "").
	user  string
	token string
	// role is the caller's effective role on alpha ("" none); admin:
	// whether it has global rights; dead: anonymous or revoked.
	role     db.Role
	admin    bool
	dead     bool
	apiToken bool
}

// matrixWorld is alpha and beta with their members, and fresh objects on
// demand.
type matrixWorld struct {
	api    *testAPI
	admin  string
	alpha  int64
	beta   int64
	job    string // a job of alpha that rows read and run
	wf     string // a workflow of alpha over job
	cal    string // a calendar of alpha that rows read
	n      int
	passwd map[string]string
}

func (w *matrixWorld) name(prefix string) string {
	w.n++
	return fmt.Sprintf("%s-%d", prefix, w.n)
}

func (w *matrixWorld) newJob(t *testing.T) string {
	return w.api.createJob(t, w.admin, "alpha", w.name("job"))
}

// newCalendar makes a calendar of app alpha; calendar makes one once and
// returns it after.
func (w *matrixWorld) newCalendar(t *testing.T) string {
	var out struct{ CreateCalendar struct{ ID string } }
	w.api.must(t, w.admin, `mutation($n: String!) { createCalendar(input: {app: "alpha", name: $n, dates: ["2026-12-25"]}) { id } }`,
		map[string]any{"n": w.name("cal")}, &out)
	return out.CreateCalendar.ID
}

// newPool makes a pool of app alpha.
func (w *matrixWorld) newPool(t *testing.T) string {
	var out struct{ CreatePool struct{ ID string } }
	w.api.must(t, w.admin, `mutation($n: String!) { createPool(input: {app: "alpha", name: $n, slots: 2}) { id } }`,
		map[string]any{"n": w.name("pool")}, &out)
	return out.CreatePool.ID
}

func (w *matrixWorld) calendar(t *testing.T) string {
	if w.cal == "" {
		w.cal = w.newCalendar(t)
	}
	return w.cal
}

func (w *matrixWorld) newWorkflow(t *testing.T) string {
	return w.api.createWorkflow(t, w.admin, w.workflowInput("alpha", w.name("wf"), w.job)).ID
}

func (w *matrixWorld) workflowInput(app, name, job string) map[string]any {
	return map[string]any{"app": app, "name": name, "scheduleType": "API",
		"nodes": []any{map[string]any{"key": "a", "type": "JOB", "jobId": job}}, "edges": []any{}}
}

// newCronWorkflow makes a CRON-scheduled workflow of alpha, disabled (for
// backfills).
func (w *matrixWorld) newCronWorkflow(t *testing.T) string {
	in := w.workflowInput("alpha", w.name("wf"), w.job)
	in["scheduleType"], in["scheduleExpression"], in["enabled"] = "CRON", "0 0 * * * ?", false
	return w.api.createWorkflow(t, w.admin, in).ID
}

// newBackfill makes a backfill of a fresh CRON workflow over the last
// hours (its runs are made only by an owner, which the matrix has not).
func (w *matrixWorld) newBackfill(t *testing.T) string {
	var out struct{ BackfillWorkflow struct{ ID string } }
	to := time.Now().UTC().Truncate(time.Hour)
	w.api.must(t, w.admin, `mutation($id: ID!, $from: Time!, $to: Time!) { backfillWorkflow(id: $id, input: {from: $from, to: $to}) { id } }`,
		map[string]any{"id": w.newCronWorkflow(t), "from": to.Add(-2 * time.Hour), "to": to}, &out)
	return out.BackfillWorkflow.ID
}

// newWorkflowInstance records a run of a fresh workflow, due in an hour.
func (w *matrixWorld) newWorkflowInstance(t *testing.T) string {
	var out struct{ RunWorkflow struct{ ID string } }
	w.api.must(t, w.admin, `mutation($id: ID!) { runWorkflow(id: $id, delayMs: 3600000) { id } }`, map[string]any{"id": w.newWorkflow(t)}, &out)
	return out.RunWorkflow.ID
}

// newInstance stores an instance of alpha's job in a status.
func (w *matrixWorld) newInstance(t *testing.T, status string) int64 {
	in := &db.Instance{AppID: w.alpha, JobID: mustInt(t, w.job), Status: status, TriggerType: "API", TriggerAt: db.Now()}
	if err := w.api.db.InstanceCreate(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	return in.ID
}

// matrixRow is one operation: how to call it on fresh objects, and what it
// needs. except overrides the expected code for some callers (by name).
type matrixRow struct {
	op     string
	query  string
	need   need
	vars   func(t *testing.T, w *matrixWorld, c *matrixCaller) map[string]any
	except map[string]string
	// hidden is the code for a caller with no role on alpha (default
	// NOT_FOUND): mutations naming the app in their input say BAD_INPUT.
	hidden string
	// after undoes what an allowed call changed that other rows rely on.
	after func(t *testing.T, w *matrixWorld, c *matrixCaller)
}

func noVars(*testing.T, *matrixWorld, *matrixCaller) map[string]any { return nil }

// tokensForbidden: operations an API token may never do.
func tokensForbidden() map[string]string {
	return map[string]string{"token-unscoped": CodeForbidden, "token-OWNER": CodeForbidden, "token-EDITOR": CodeForbidden,
		"token-VIEWER": CodeForbidden, "token-beta": CodeForbidden}
}

func matrixRows() []matrixRow {
	id := func(f func(t *testing.T, w *matrixWorld) string) func(*testing.T, *matrixWorld, *matrixCaller) map[string]any {
		return func(t *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
			return map[string]any{"id": f(t, w)}
		}
	}
	job := id(func(t *testing.T, w *matrixWorld) string { return w.job })
	freshJob := id(func(t *testing.T, w *matrixWorld) string { return w.newJob(t) })
	calendar := id(func(t *testing.T, w *matrixWorld) string { return w.calendar(t) })
	freshCalendar := id(func(t *testing.T, w *matrixWorld) string { return w.newCalendar(t) })
	freshPool := id(func(t *testing.T, w *matrixWorld) string { return w.newPool(t) })
	wf := id(func(t *testing.T, w *matrixWorld) string { return w.wf })
	freshWF := id(func(t *testing.T, w *matrixWorld) string { return w.newWorkflow(t) })
	run := id(func(t *testing.T, w *matrixWorld) string { return w.newWorkflowInstance(t) })
	freshBackfill := id(func(t *testing.T, w *matrixWorld) string { return w.newBackfill(t) })
	backfillRange := func(f func(t *testing.T, w *matrixWorld) string) func(*testing.T, *matrixWorld, *matrixCaller) map[string]any {
		return func(t *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
			to := time.Now().UTC().Truncate(time.Hour)
			return map[string]any{"id": f(t, w), "from": to.Add(-2 * time.Hour), "to": to}
		}
	}
	instance := func(status string) func(*testing.T, *matrixWorld, *matrixCaller) map[string]any {
		return id(func(t *testing.T, w *matrixWorld) string { return fmt.Sprint(w.newInstance(t, status)) })
	}
	return []matrixRow{
		// Queries.
		{op: "me", query: `{ me { username } }`, need: needCaller, vars: noVars},
		{op: "signInOptions", query: `{ signInOptions { password sso { name } } }`, need: needPublic, vars: noVars},
		{op: "traceUrlTemplate", query: `{ traceUrlTemplate }`, need: needCaller, vars: noVars},
		{op: "apps", query: `{ apps { name myRole } }`, need: needCaller, vars: noVars},
		{op: "servers", query: `{ servers { id apps { name } } }`, need: needCaller, vars: noVars},
		{op: "users", query: `{ users { username } }`, need: needAdmin, vars: noVars},
		{op: "apiTokens", query: `{ apiTokens { name } }`, need: needCaller, vars: noVars},
		{op: "previewSchedule", query: `{ previewSchedule(type: CRON, expression: "0 * * * * ?") }`, need: needCaller, vars: noVars},
		{op: "jobs", query: `{ jobs(app: "alpha") { totalCount } }`, need: needViewer, vars: noVars},
		{op: "job", query: `query($id: ID!) { job(id: $id) { name } }`, need: needViewer, vars: job},
		{op: "calendars", query: `{ calendars(app: "alpha") { name } }`, need: needViewer, vars: noVars},
		{op: "calendar", query: `query($id: ID!) { calendar(id: $id) { name } }`, need: needViewer, vars: calendar},
		{op: "pools", query: `{ pools(app: "alpha") { name usedSlots holders { id } queue { id } } }`, need: needViewer, vars: noVars},
		{op: "pool", query: `query($id: ID!) { pool(id: $id) { name usedSlots } }`, need: needViewer, vars: freshPool},
		{op: "instances", query: `{ instances(app: "alpha") { totalCount } }`, need: needViewer, vars: noVars},
		{op: "instance", query: `query($id: ID!) { instance(id: $id) { status } }`, need: needViewer, vars: instance(db.StatusSucceeded)},
		{op: "appStats", query: `{ appStats(app: "alpha") { jobs } }`, need: needViewer, vars: noVars},
		{op: "runReport", query: `{ runReport(app: "alpha", from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00Z") { days { runs } } }`, need: needViewer, vars: noVars},
		{op: "appsOverview", query: `{ appsOverview { app { name } } }`, need: needCaller, vars: noVars},
		{op: "auditLog", query: `{ auditLog(app: "alpha") { totalCount } }`, need: needViewer, vars: noVars},
		{op: "workers", query: `{ workers(app: "alpha") { id } }`, need: needViewer, vars: noVars},
		{op: "workflows", query: `{ workflows(app: "alpha") { totalCount } }`, need: needViewer, vars: noVars},
		{op: "workflow", query: `query($id: ID!) { workflow(id: $id) { name } }`, need: needViewer, vars: wf},
		{op: "workflowInstance", query: `query($id: ID!) { workflowInstance(id: $id) { status } }`, need: needViewer, vars: run},
		{op: "workflowInstances", query: `{ workflowInstances(app: "alpha") { totalCount } }`, need: needViewer, vars: noVars},
		{op: "backfills", query: `{ backfills(app: "alpha") { id total running } }`, need: needViewer, vars: noVars},
		{op: "backfill", query: `query($id: ID!) { backfill(id: $id) { status total done } }`, need: needViewer, vars: freshBackfill},
		{op: "exportWorkflow", query: `query($id: ID!) { exportWorkflow(id: $id) }`, need: needViewer, vars: wf},

		// Mutations: sessions and users.
		{op: "login", query: `mutation { login(username: "viewer", password: "password-1") { token } }`, need: needPublic, vars: noVars},
		{op: "logout", query: `mutation { logout }`, need: needCaller, vars: noVars},
		{op: "createUser", query: `mutation($n: String!) { createUser(username: $n, password: "password-1") { id } }`, need: needAdmin,
			vars: func(_ *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
				return map[string]any{"n": w.name("user")}
			}},
		{op: "changePassword", query: `mutation($old: String!) { changePassword(oldPassword: $old, newPassword: "password-2") }`, need: needCaller,
			vars: func(_ *testing.T, w *matrixWorld, c *matrixCaller) map[string]any {
				return map[string]any{"old": w.passwd[c.user]}
			},
			except: tokensForbidden(),
			after:  func(t *testing.T, w *matrixWorld, c *matrixCaller) { w.resetPassword(t, c.user) }},
		// A token narrowed to alpha, at most VIEWER: whoever sees alpha may
		// make one, but not with a read-only token.
		{op: "createApiToken", query: `mutation($n: String!) { createApiToken(name: $n, app: "alpha", role: VIEWER) { secret } }`, need: needViewer,
			vars: func(_ *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
				return map[string]any{"n": w.name("token")}
			},
			except: map[string]string{"token-VIEWER": CodeForbidden}},
		// The owner's token, narrowed to alpha: its creator, the admin and
		// the owner's writable alpha tokens may revoke it; to anyone else
		// it does not exist.
		{op: "revokeApiToken", query: `mutation($id: ID!) { revokeApiToken(id: $id) }`, need: needCaller,
			vars: func(t *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
				id, _ := w.token(t, w.login(t, "owner"), "alpha", nil)
				return map[string]any{"id": id}
			},
			except: map[string]string{"editor": CodeNotFound, "viewer": CodeNotFound, "norole": CodeNotFound, "beta-owner": CodeNotFound,
				"token-unscoped": CodeNotFound, "token-beta": CodeNotFound, "token-VIEWER": CodeForbidden}},

		// Apps and members.
		{op: "createApp", query: `mutation($n: String!) { createApp(name: $n) { secret } }`, need: needAdmin,
			vars: func(_ *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
				return map[string]any{"n": w.name("app")}
			}},
		{op: "deleteApp", query: `mutation($n: String!) { deleteApp(app: $n) }`, need: needAdmin,
			vars: func(t *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
				n := w.name("doomed")
				w.api.createApp(t, w.admin, n)
				return map[string]any{"n": n}
			}},
		{op: "setAppRole", query: `mutation { setAppRole(app: "alpha", username: "target", role: VIEWER) { name } }`, need: needOwner, vars: noVars,
			after: func(t *testing.T, w *matrixWorld, _ *matrixCaller) { w.api.setRole(t, w.admin, "alpha", "target", nil) }},
		{op: "rotateAppSecret", query: `mutation { rotateAppSecret(app: "alpha") { secret } }`, need: needOwner, vars: noVars},
		{op: "setAppRetention", query: `mutation { setAppRetention(app: "alpha", days: 30) { retentionDays } }`, need: needOwner, vars: noVars},
		{op: "setAppWorkflowBudget", query: `mutation { setAppWorkflowBudget(app: "alpha", budget: 100000) { workflowBudget } }`, need: needOwner, vars: noVars},

		// Jobs and instances.
		{op: "createJob", query: `mutation($n: String!) { createJob(input: {app: "alpha", name: $n, scheduleType: API, processorType: SHELL, processor: "true"}) { id } }`,
			need: needEditor, hidden: CodeBadInput,
			vars: func(_ *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
				return map[string]any{"n": w.name("job")}
			}},
		{op: "updateJob", query: `mutation($id: ID!, $n: String!) { updateJob(id: $id, input: {app: "alpha", name: $n, scheduleType: API, processorType: SHELL, processor: "false"}) { id } }`,
			need: needEditor, vars: func(t *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
				return map[string]any{"id": w.newJob(t), "n": w.name("renamed")}
			}},
		{op: "setJobEnabled", query: `mutation($id: ID!) { setJobEnabled(id: $id, enabled: false) { id } }`, need: needEditor, vars: freshJob},
		{op: "setJobManagedBy", query: `mutation($id: ID!) { setJobManagedBy(id: $id, set: "svc") { id } }`, need: needEditor, vars: freshJob},
		{op: "deleteJob", query: `mutation($id: ID!) { deleteJob(id: $id) }`, need: needEditor, vars: freshJob},
		{op: "restoreJobVersion", query: `mutation($id: ID!) { restoreJobVersion(id: $id, version: 1) { id } }`, need: needEditor, vars: freshJob},
		{op: "createCalendar", query: `mutation($n: String!) { createCalendar(input: {app: "alpha", name: $n, dates: ["2026-12-25"]}) { id } }`,
			need: needEditor, hidden: CodeBadInput, vars: func(t *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
				return map[string]any{"n": w.name("cal")}
			}},
		{op: "updateCalendar", query: `mutation($id: ID!, $n: String!) { updateCalendar(id: $id, input: {app: "alpha", name: $n, dates: ["2026-12-26"]}) { id } }`,
			need: needEditor, vars: func(t *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
				return map[string]any{"id": w.newCalendar(t), "n": w.name("cal")}
			}},
		{op: "deleteCalendar", query: `mutation($id: ID!) { deleteCalendar(id: $id) }`, need: needEditor, vars: freshCalendar},
		{op: "createPool", query: `mutation($n: String!) { createPool(input: {app: "alpha", name: $n, slots: 1}) { id } }`,
			need: needEditor, hidden: CodeBadInput, vars: func(t *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
				return map[string]any{"n": w.name("pool")}
			}},
		{op: "updatePool", query: `mutation($id: ID!, $n: String!) { updatePool(id: $id, input: {app: "alpha", name: $n, slots: 3}) { id } }`,
			need: needEditor, vars: func(t *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
				id := w.newPool(t)
				return map[string]any{"id": id, "n": fmt.Sprintf("pool-%d", w.n)}
			}},
		{op: "deletePool", query: `mutation($id: ID!) { deletePool(id: $id) }`, need: needEditor, vars: freshPool},
		{op: "runJob", query: `mutation($id: ID!) { runJob(id: $id, delayMs: 3600000) { id } }`, need: needEditor, vars: job},
		{op: "stopInstance", query: `mutation($id: ID!) { stopInstance(id: $id) { status } }`, need: needEditor, vars: instance(db.StatusWaiting)},
		{op: "sendTestAlarm", query: `mutation($id: ID!) { sendTestAlarm(jobId: $id) { ok } }`, need: needEditor, vars: job},
		{op: "retryInstance", query: `mutation($id: ID!) { retryInstance(id: $id) { status } }`, need: needEditor, vars: instance(db.StatusFailed)},

		// Backfills.
		{op: "backfillWorkflow", query: `mutation($id: ID!, $from: Time!, $to: Time!) { backfillWorkflow(id: $id, input: {from: $from, to: $to}) { id } }`,
			need: needEditor, vars: backfillRange(func(t *testing.T, w *matrixWorld) string { return w.newCronWorkflow(t) })},
		{op: "backfillJob", query: `mutation($id: ID!, $from: Time!, $to: Time!) { backfillJob(id: $id, input: {from: $from, to: $to}) { id } }`,
			need: needEditor, vars: backfillRange(func(t *testing.T, w *matrixWorld) string {
				var out struct{ CreateJob struct{ ID string } }
				w.api.must(t, w.admin, `mutation($in: JobInput!) { createJob(input: $in) { id } }`, map[string]any{"in": map[string]any{
					"app": "alpha", "name": w.name("cron"), "scheduleType": "CRON", "scheduleExpression": "0 0 * * * ?", "enabled": false,
					"processorType": "SHELL", "processor": "echo hi"}}, &out)
				return out.CreateJob.ID
			})},
		{op: "stopBackfill", query: `mutation($id: ID!) { stopBackfill(id: $id) { status } }`, need: needEditor, vars: freshBackfill},

		// Workflows and their runs.
		{op: "createWorkflow", query: `mutation($in: WorkflowInput!) { createWorkflow(input: $in) { id } }`, need: needEditor, hidden: CodeBadInput,
			vars: func(_ *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
				return map[string]any{"in": w.workflowInput("alpha", w.name("wf"), w.job)}
			}},
		{op: "updateWorkflow", query: `mutation($id: ID!, $in: WorkflowInput!) { updateWorkflow(id: $id, input: $in) { version } }`, need: needEditor,
			vars: func(t *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
				return map[string]any{"id": w.newWorkflow(t), "in": w.workflowInput("alpha", w.name("wf"), w.job)}
			}},
		{op: "deleteWorkflow", query: `mutation($id: ID!) { deleteWorkflow(id: $id) }`, need: needEditor, vars: freshWF},
		{op: "setWorkflowUpstream", query: `mutation($id: ID!, $up: ID!) { setWorkflowUpstream(id: $id, upstream: [{workflowId: $up}]) { id } }`, need: needEditor,
			vars: func(t *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
				return map[string]any{"id": w.newWorkflow(t), "up": w.newWorkflow(t)}
			}},
		{op: "setWorkflowEnabled", query: `mutation($id: ID!) { setWorkflowEnabled(id: $id, enabled: false) { id } }`, need: needEditor, vars: freshWF},
		{op: "restoreWorkflowVersion", query: `mutation($id: ID!) { restoreWorkflowVersion(id: $id, version: 1) { version } }`, need: needEditor, vars: freshWF},
		{op: "importWorkflow", query: `mutation($def: JSON!) { importWorkflow(app: "alpha", definition: $def) { id } }`, need: needEditor, hidden: CodeBadInput,
			vars: func(t *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
				var out struct{ ExportWorkflow map[string]any }
				w.api.must(t, w.admin, `query($id: ID!) { exportWorkflow(id: $id) }`, map[string]any{"id": w.wf}, &out)
				out.ExportWorkflow["name"] = w.name("imported")
				return map[string]any{"def": out.ExportWorkflow}
			}},
		{op: "applyConfig", query: `mutation($n: String!) { applyConfig(input: {set: "matrix", apps: ["alpha"],
			jobs: [{app: "alpha", name: $n, scheduleType: API, processorType: SHELL, processor: "true"}]}) { applied } }`,
			need: needEditor, hidden: CodeBadInput, vars: func(_ *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
				return map[string]any{"n": w.name("applied")}
			}},
		{op: "runWorkflow", query: `mutation($id: ID!) { runWorkflow(id: $id, delayMs: 3600000) { id } }`, need: needEditor, vars: wf},
		{op: "stopWorkflowInstance", query: `mutation($id: ID!) { stopWorkflowInstance(id: $id) { id } }`, need: needEditor, vars: run},
		{op: "retryWorkflowInstance", query: `mutation($id: ID!) { retryWorkflowInstance(id: $id) { id } }`, need: needEditor, vars: run},
		{op: "markWorkflowNodeSucceeded", query: `mutation($id: ID!) { markWorkflowNodeSucceeded(workflowInstanceId: $id, node: "a") { id } }`, need: needEditor, vars: run},
		{op: "rerunWorkflowNode", query: `mutation($id: ID!) { rerunWorkflowNode(workflowInstanceId: $id, node: "a", downstream: true) { id } }`, need: needEditor, vars: run},
		{op: "pauseWorkflowInstance", query: `mutation($id: ID!) { pauseWorkflowInstance(id: $id) { id } }`, need: needEditor, vars: run},
		{op: "resumeWorkflowInstance", query: `mutation($id: ID!) { resumeWorkflowInstance(id: $id) { id } }`, need: needEditor, vars: run},
		{op: "approveWorkflowNode", query: `mutation($id: ID!) { approveWorkflowNode(workflowInstanceId: $id, node: "a", approve: true) { id } }`, need: needEditor, vars: run},

		// Subscriptions: allowed means the first value arrives.
		{op: "instanceLogs", query: `subscription($id: ID!) { instanceLogs(instanceId: $id) { seq } }`, need: needViewer,
			vars: func(t *testing.T, w *matrixWorld, _ *matrixCaller) map[string]any {
				in := w.newInstance(t, db.StatusRunning)
				if err := w.api.logs.Append(context.Background(), w.alpha, in, "INFO", "a line"); err != nil {
					t.Fatal(err)
				}
				return map[string]any{"id": in}
			}},
		{op: "instanceUpdated", query: `subscription { instanceUpdated(app: "alpha") { id } }`, need: needViewer, vars: noVars},
		{op: "workersUpdated", query: `subscription { workersUpdated(app: "alpha") { id } }`, need: needViewer, vars: noVars},
		{op: "workflowInstanceUpdated", query: `subscription($id: ID!) { workflowInstanceUpdated(id: $id) { id } }`, need: needViewer, vars: run},
	}
}

// expected is the code a caller gets for a row; "" means allowed.
func (r *matrixRow) expected(c *matrixCaller) string {
	if c.dead {
		if r.need == needPublic {
			return ""
		}
		return CodeUnauthenticated
	}
	if code, ok := r.except[c.name]; ok {
		return code
	}
	switch r.need {
	case needPublic, needCaller:
		return ""
	case needAdmin:
		if c.admin {
			return ""
		}
		return CodeForbidden
	}
	want := map[need]db.Role{needViewer: db.RoleViewer, needEditor: db.RoleEditor, needOwner: db.RoleOwner}[r.need]
	switch {
	case c.role == "" && r.hidden != "":
		return r.hidden
	case c.role == "":
		return CodeNotFound
	case auth.RoleRank(c.role) < auth.RoleRank(want):
		return CodeForbidden
	}
	return ""
}

func (w *matrixWorld) login(t *testing.T, user string) string {
	t.Helper()
	return w.api.login(t, user, w.passwd[user])
}

// token creates an API token with the session's rights, narrowed to app
// (if not "") and role (if not nil); it returns the token's id and secret.
func (w *matrixWorld) token(t *testing.T, session, app string, role *string) (string, string) {
	var out struct {
		CreateApiToken struct {
			Token  struct{ ID string }
			Secret string
		}
	}
	vars := map[string]any{"n": w.name("token"), "r": role}
	if app != "" {
		vars["a"] = app
	}
	w.api.must(t, session, `mutation($n: String!, $a: String, $r: AppRole) { createApiToken(name: $n, app: $a, role: $r) { token { id } secret } }`, vars, &out)
	return out.CreateApiToken.Token.ID, out.CreateApiToken.Secret
}

func (w *matrixWorld) resetPassword(t *testing.T, user string) {
	if user == "" {
		return
	}
	ctx := context.Background()
	u, err := w.api.db.UserGetByName(ctx, user)
	if err != nil {
		t.Fatal(err)
	}
	hash, err := auth.HashPassword(w.passwd[user])
	if err != nil {
		t.Fatal(err)
	}
	if err := w.api.db.UserSetPassword(ctx, u.ID, hash); err != nil {
		t.Fatal(err)
	}
	if user == auth.AdminUsername {
		w.admin = w.api.admin(t) // the change ended the admin's other sessions
	}
}

// newMatrixWorld makes alpha (owner, editor, viewer), beta (beta-owner),
// a user with no role, the user "target" roles are given to, and the
// callers.
func newMatrixWorld(t *testing.T, d *db.DB) (*matrixWorld, []*matrixCaller) {
	api := newAPI(t, d, apiOptions{limits: auth.LoginLimits{UserFree: 1 << 30, AddrFree: 1 << 30}})
	w := &matrixWorld{api: api, admin: api.admin(t), passwd: map[string]string{"admin": adminPassword}}
	w.alpha = api.createApp(t, w.admin, "alpha")
	w.beta = api.createApp(t, w.admin, "beta")
	for user, role := range map[string]string{"owner": "OWNER", "editor": "EDITOR", "viewer": "VIEWER", "norole": "", "target": "", "beta-owner": ""} {
		api.createUser(t, w.admin, user)
		w.passwd[user] = "password-1"
		if role != "" {
			api.setRole(t, w.admin, "alpha", user, role)
		}
	}
	api.setRole(t, w.admin, "beta", "beta-owner", "OWNER")
	// The admin created both apps and is listed as their OWNER; it keeps
	// its rights as an administrator.
	w.job = api.createJob(t, w.admin, "alpha", "shared")
	w.wf = api.createWorkflow(t, w.admin, w.workflowInput("alpha", "shared", w.job)).ID

	owner := w.login(t, "owner")
	role := func(r string) *string { return &r }
	_, unscoped := w.token(t, w.login(t, "editor"), "", nil)
	_, ownerTok := w.token(t, owner, "alpha", role("OWNER"))
	_, editorTok := w.token(t, owner, "alpha", role("EDITOR"))
	_, viewerTok := w.token(t, owner, "alpha", role("VIEWER"))
	_, betaTok := w.token(t, w.admin, "beta", nil)
	revokedID, revoked := w.token(t, owner, "alpha", nil)
	api.must(t, owner, `mutation($id: ID!) { revokeApiToken(id: $id) }`, map[string]any{"id": revokedID}, nil)

	callers := []*matrixCaller{
		{name: "admin", user: "admin", role: db.RoleOwner, admin: true},
		{name: "owner", user: "owner", role: db.RoleOwner},
		{name: "editor", user: "editor", role: db.RoleEditor},
		{name: "viewer", user: "viewer", role: db.RoleViewer},
		{name: "norole", user: "norole"},
		{name: "beta-owner", user: "beta-owner"},
		{name: "token-unscoped", token: unscoped, role: db.RoleEditor, apiToken: true}, // the editor's, unnarrowed
		{name: "token-OWNER", token: ownerTok, role: db.RoleOwner, apiToken: true},
		{name: "token-EDITOR", token: editorTok, role: db.RoleEditor, apiToken: true},
		{name: "token-VIEWER", token: viewerTok, role: db.RoleViewer, apiToken: true},
		{name: "token-beta", token: betaTok, apiToken: true}, // the admin's, narrowed to beta
		{name: "token-revoked", token: revoked, dead: true},
		{name: "anonymous", dead: true},
	}
	return w, callers
}

// operations lists the schema's root operations as "query.me" etc.
func operations(t *testing.T) map[string]string {
	schema := generated.NewExecutableSchema(generated.Config{Resolvers: &Resolver{}}).Schema()
	ops := map[string]string{}
	for kind, typ := range map[string]string{"query": "Query", "mutation": "Mutation", "subscription": "Subscription"} {
		def := schema.Types[typ]
		if def == nil {
			t.Fatalf("the schema has no %s type", typ)
		}
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			ops[f.Name] = kind
		}
	}
	return ops
}

// TestAuthorizationMatrix: every operation × every caller.
func TestAuthorizationMatrix(t *testing.T) {
	t.Parallel()
	rows := matrixRows()
	ops := operations(t)
	covered := map[string]bool{}
	for _, r := range rows {
		if _, ok := ops[r.op]; !ok {
			t.Errorf("row %q: the schema has no such operation", r.op)
		}
		covered[r.op] = true
	}
	var missing []string
	for op := range ops {
		if !covered[op] {
			missing = append(missing, ops[op]+" "+op)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("operations without a row in the authorization matrix: %s", strings.Join(missing, ", "))
	}

	d := dbtest.Open(t, db.Postgres)
	w, callers := newMatrixWorld(t, d)
	for _, r := range rows {
		for _, c := range callers {
			token := c.token
			if c.user != "" {
				token = w.login(t, c.user) // a session of its own: logout and changePassword end it
			}
			vars := r.vars(t, w, c)
			var got string
			if ops[r.op] == "subscription" {
				// A bound per call, not for the whole matrix: its 676
				// cells take minutes on a loaded machine.
				ctx, cancel := context.WithTimeout(context.Background(), bound)
				got = w.subscribe(ctx, t, token, r.query, vars)
				cancel()
			} else {
				got = w.call(t, token, r.query, vars)
			}
			if want := r.expected(c); got != want {
				t.Errorf("%s %s as %s: got %s, want %s", ops[r.op], r.op, c.name, orAllowed(got), orAllowed(want))
			}
			if got == "" && r.after != nil {
				r.after(t, w, c)
			}
		}
	}
}

func orAllowed(code string) string {
	if code == "" {
		return "allowed"
	}
	return code
}

// call runs a query or mutation: "" if it succeeded, else its error's
// code (every error of one call must agree).
func (w *matrixWorld) call(t *testing.T, token, query string, vars map[string]any) string {
	t.Helper()
	r := w.api.do(t, token, query, vars, nil)
	if len(r.Errors) == 0 {
		if len(r.Data) == 0 || string(r.Data) == "null" {
			return "no data"
		}
		return ""
	}
	codes := map[string]bool{}
	for _, e := range r.Errors {
		codes[e.code()] = true
	}
	if len(codes) > 1 {
		return fmt.Sprintf("mixed %v", r.Errors)
	}
	return r.code()
}

// subscribe opens a websocket and subscribes: "" once a first value
// arrives, else the code it was refused with (the socket's close for a
// credential refused in connection_init).
func (w *matrixWorld) subscribe(ctx context.Context, t *testing.T, token, query string, vars map[string]any) string {
	t.Helper()
	c, err := client.Dial(ctx, w.api.url, client.Options{Token: token})
	if err != nil {
		return codeOf(t, err)
	}
	defer c.CloseNow()
	s, err := c.Subscribe(ctx, query, vars)
	if err != nil {
		return codeOf(t, err)
	}
	for {
		// instanceUpdated sends changes made after it started: make one
		// each round until the first value (or the refusal) arrives.
		if strings.Contains(query, "instanceUpdated") {
			w.api.must(t, w.admin, `mutation($id: ID!) { runJob(id: $id, delayMs: 3600000) { id } }`, map[string]any{"id": w.job}, nil)
		}
		round, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		_, err := s.Next(round)
		cancel()
		switch {
		case err == nil:
			return ""
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			continue
		}
		return codeOf(t, err)
	}
}

func codeOf(t *testing.T, err error) string {
	t.Helper()
	var errs client.Errors
	var closed *client.CloseError
	switch {
	case errors.As(err, &errs):
		return errs.Code()
	case errors.As(err, &closed):
		code, _, _ := strings.Cut(closed.Reason, ":")
		return code
	}
	b, _ := json.Marshal(err.Error())
	return "error " + string(b)
}

// TestCrossAppReferences: a member of app beta naming beta but passing
// alpha's ids (a job filter, a workflow filter, a workflow's nodes) is
// refused naming the field, and never sees alpha's objects.
func TestCrossAppReferences(t *testing.T) {
	t.Parallel()
	w, _ := newMatrixWorld(t, dbtest.Open(t, db.SQLite))
	ctx := waitCtx(t)
	alphaWorkflowInstance := w.newWorkflowInstance(t)
	alphaInstance := w.newInstance(t, db.StatusSucceeded)
	betaOwner := w.login(t, "beta-owner")
	_, betaToken := w.token(t, w.admin, "beta", nil)
	betaJob := w.api.createJob(t, betaOwner, "beta", "beta-job")
	for _, token := range []string{betaOwner, betaToken} {
		for _, tc := range []struct {
			name, query string
			vars        map[string]any
			code, field string
		}{
			{"runs of beta filtered by alpha's workflow", `query($w: ID) { workflowInstances(app: "beta", workflowId: $w) { totalCount edges { node { id } } } }`,
				map[string]any{"w": w.wf}, CodeBadInput, "workflowId"},
			{"a beta workflow running alpha's job", `mutation($in: WorkflowInput!) { createWorkflow(input: $in) { id } }`,
				map[string]any{"in": w.workflowInput("beta", "x", w.job)}, CodeBadInput, "nodes[0].jobId"},
			{"a beta workflow nesting alpha's workflow", `mutation($in: WorkflowInput!) { createWorkflow(input: $in) { id } }`,
				map[string]any{"in": map[string]any{"app": "beta", "name": "y", "scheduleType": "API", "edges": []any{},
					"nodes": []any{map[string]any{"key": "n", "type": "NESTED", "workflowId": w.wf}}}}, CodeBadInput, "nodes[0].workflowId"},
			{"a beta job moved into alpha", `mutation($id: ID!) { updateJob(id: $id, input: {app: "alpha", name: "moved", scheduleType: API, processorType: SHELL, processor: "true"}) { id } }`,
				map[string]any{"id": betaJob}, CodeBadInput, "app"},
			{"alpha's run", `query($id: ID!) { workflowInstance(id: $id) { id } }`, map[string]any{"id": alphaWorkflowInstance}, CodeNotFound, ""},
			{"alpha's instance", `query($id: ID!) { instance(id: $id) { id } }`, map[string]any{"id": alphaInstance}, CodeNotFound, ""},
		} {
			r := w.api.do(t, token, tc.query, tc.vars, nil)
			if r.code() != tc.code || tc.field != "" && r.Errors[0].field() != tc.field {
				t.Errorf("%s: %+v %s, want %s on %q", tc.name, r.Errors, r.Data, tc.code, tc.field)
			}
		}
		// The instances filter takes any job id (instances outlive their
		// job): another app's job matches nothing of beta's.
		var page struct{ Instances struct{ TotalCount int } }
		w.api.must(t, token, `query($j: ID) { instances(app: "beta", jobId: $j) { totalCount } }`, map[string]any{"j": w.job}, &page)
		if page.Instances.TotalCount != 0 {
			t.Errorf("beta's instances of alpha's job: %d, want none", page.Instances.TotalCount)
		}
		c, err := client.Dial(ctx, w.api.url, client.Options{Token: token})
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.Subscribe(ctx, `subscription($j: ID) { instanceUpdated(app: "beta", jobId: $j) { id } }`, map[string]any{"j": w.job})
		if err != nil {
			t.Fatal(err)
		}
		var errs client.Errors
		if _, err := s.Next(ctx); !errors.As(err, &errs) || errs.Code() != CodeBadInput || errs[0].Field() != "jobId" {
			t.Errorf("instanceUpdated of beta filtered by alpha's job: %v, want BAD_INPUT on jobId", err)
		}
		c.CloseNow()
	}
}
