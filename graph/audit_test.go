package graph

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

type auditPage struct {
	AuditLog struct {
		TotalCount int
		Edges      []struct {
			Node auditNode
		}
		PageInfo struct {
			HasNextPage bool
			EndCursor   *string
		}
	}
}

type auditNode struct {
	Actor, Action, ObjectType, ObjectID, ObjectName, Outcome string
	App, TokenName, Error                                    *string
	Changes                                                  []struct {
		Field         string
		Before, After any
	}
}

const auditQuery = `query($app: String, $t: String, $o: String, $first: Int, $after: String) {
  auditLog(app: $app, objectType: $t, objectId: $o, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { node { actor action objectType objectId objectName outcome error app tokenName changes { field before after } } } } }`

// TestAuditLog: mutations are on record with who made them, the object,
// and only the fields they changed (before and after); failed ones with
// their error code; an app's log is read by its members only, every entry
// by administrators, page by page.
func TestAuditLog(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		api.createApp(t, admin, "orders")
		api.createApp(t, admin, "billing")
		job := api.createJob(t, admin, "orders", "nightly")
		api.must(t, admin, `mutation($id: ID!, $in: JobInput!) { updateJob(id: $id, input: $in) { id } }`, map[string]any{"id": job, "in": map[string]any{
			"app": "orders", "name": "nightly", "scheduleType": "API", "processorType": "SHELL", "processor": "echo changed", "timeoutMs": 5000}}, nil)
		api.must(t, admin, `mutation($id: ID!) { setJobEnabled(id: $id, enabled: false) { id } }`, map[string]any{"id": job}, nil)
		viewer := api.createUser(t, admin, "vera")
		if r := api.setRole(t, admin, "orders", "vera", "VIEWER"); len(r.Errors) > 0 {
			t.Fatal(r.Errors)
		}
		// A viewer cannot edit: the refusal is on record too, with the
		// message the viewer was answered with.
		r := api.do(t, viewer, `mutation($id: ID!) { setJobEnabled(id: $id, enabled: true) { id } }`, map[string]any{"id": job}, nil)
		if r.code() != CodeForbidden {
			t.Fatalf("viewer enabling a job: %+v", r.Errors)
		}
		answered := r.Errors[0].Message

		var page auditPage
		api.must(t, viewer, auditQuery, map[string]any{"app": "orders", "t": "job", "o": job}, &page)
		got := page.AuditLog.Edges
		if len(got) != 4 || page.AuditLog.TotalCount != 4 {
			t.Fatalf("the job's history has %d entries (total %d), want 4: %+v", len(got), page.AuditLog.TotalCount, got)
		}
		// Newest first.
		refused, disabled, updated, created := got[0].Node, got[1].Node, got[2].Node, got[3].Node
		if refused.Action != "setJobEnabled" || refused.Actor != "vera" || refused.Outcome != CodeForbidden || len(changesOf(refused, "enabled")) != 0 {
			t.Errorf("refused entry: %+v", refused)
		}
		if refused.Error == nil || *refused.Error != answered || answered == "" {
			t.Errorf("refused entry's error %v, want what the viewer read: %q", refused.Error, answered)
		}
		if disabled.Error != nil {
			t.Errorf("a done change has an error: %q", *disabled.Error)
		}
		if disabled.Action != "setJobEnabled" || disabled.Actor != "admin" || disabled.Outcome != "OK" || disabled.ObjectName != "nightly" ||
			disabled.App == nil || *disabled.App != "orders" {
			t.Errorf("disabling entry: %+v", disabled)
		}
		if c := changesOf(disabled, "enabled"); len(c) != 1 || c[0].Before != true || c[0].After != false {
			t.Errorf("disabling changed %+v, want enabled true → false", disabled.Changes)
		}
		var fields []string
		for _, c := range updated.Changes {
			fields = append(fields, c.Field)
		}
		// The job's version moves with every change, and the entry says so.
		if strings.Join(fields, ",") != "processor,timeoutMs,version" {
			t.Errorf("updateJob recorded changes to %v, want exactly processor, timeoutMs and version: %+v", fields, updated.Changes)
		}
		if c := changesOf(updated, "processor"); len(c) != 1 || c[0].Before != "echo hi" || c[0].After != "echo changed" {
			t.Errorf("processor change: %+v", c)
		}
		if c := changesOf(created, "name"); created.Action != "createJob" || len(c) != 1 || c[0].Before != nil || c[0].After != "nightly" {
			t.Errorf("createJob entry: %+v", created)
		}

		// Running a job changes nothing of it: the entry names the job, its
		// app and the instance made, and records no field of the job.
		var run struct{ RunJob struct{ ID string } }
		api.must(t, admin, `mutation($id: ID!) { runJob(id: $id) { id } }`, map[string]any{"id": job}, &run)
		var after auditPage
		api.must(t, admin, auditQuery, map[string]any{"app": "orders", "t": "job", "o": job, "first": 2}, &after)
		ran := after.AuditLog.Edges[0].Node
		// Written once, in the run's transaction, not again after it.
		if prev := after.AuditLog.Edges[1].Node; prev.Action == "runJob" {
			t.Errorf("runJob recorded twice: %+v and %+v", ran, prev)
		}
		var jobFields []string
		for _, c := range ran.Changes {
			if c.Field != "instance" && !strings.HasPrefix(c.Field, "arg.") {
				jobFields = append(jobFields, c.Field)
			}
		}
		if ran.Action != "runJob" || ran.ObjectName != "nightly" || ran.App == nil || *ran.App != "orders" ||
			len(changesOf(ran, "instance")) != 1 || changesOf(ran, "instance")[0].After != run.RunJob.ID || len(jobFields) != 0 {
			t.Errorf("runJob entry: %+v; want the job named, in orders, the instance %s made and no field of the job", ran, run.RunJob.ID)
		}

		// The app's log: its members only; every entry: administrators.
		stranger := api.createUser(t, admin, "sam")
		if r := api.do(t, stranger, auditQuery, map[string]any{"app": "orders"}, nil); r.code() != CodeNotFound {
			t.Errorf("a stranger reading orders' audit log: %+v", r.Errors)
		}
		if r := api.do(t, viewer, auditQuery, nil, nil); r.code() != CodeForbidden {
			t.Errorf("a viewer reading every entry: %+v", r.Errors)
		}
		var all auditPage
		api.must(t, admin, auditQuery, map[string]any{"first": 3}, &all)
		if len(all.AuditLog.Edges) != 3 || !all.AuditLog.PageInfo.HasNextPage || all.AuditLog.TotalCount < 10 {
			t.Fatalf("first page of every entry: %+v", all.AuditLog)
		}
		var next auditPage
		api.must(t, admin, auditQuery, map[string]any{"first": 3, "after": *all.AuditLog.PageInfo.EndCursor}, &next)
		if len(next.AuditLog.Edges) != 3 || next.AuditLog.TotalCount != all.AuditLog.TotalCount {
			t.Fatalf("second page: %+v", next.AuditLog)
		}
		var roles auditPage
		api.must(t, admin, auditQuery, map[string]any{"app": "orders", "t": "app_member", "o": "vera"}, &roles)
		if len(roles.AuditLog.Edges) != 1 {
			t.Fatalf("vera's role on orders: %+v", roles.AuditLog.Edges)
		}
		if c := changesOf(roles.AuditLog.Edges[0].Node, "role"); len(c) != 1 || c[0].Before != nil || c[0].After != "VIEWER" {
			t.Errorf("setAppRole recorded %+v", roles.AuditLog.Edges[0].Node.Changes)
		}
	})
}

// TestAuditNeverRecordsSecrets: passwords, app and token secrets, an HTTP
// job's header values and alarm webhook keys appear nowhere in the audit
// log, whatever mutation carried them.
func TestAuditNeverRecordsSecrets(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		var app struct{ CreateApp struct{ Secret string } }
		api.must(t, admin, `mutation { createApp(name: "orders") { secret } }`, nil, &app)
		var rotated struct{ RotateAppSecret struct{ Secret string } }
		api.must(t, admin, `mutation { rotateAppSecret(app: "orders") { secret } }`, nil, &rotated)
		var tok struct{ CreateApiToken struct{ Secret string } }
		api.must(t, admin, `mutation { createApiToken(name: "deploy", app: "orders", role: EDITOR) { secret } }`, nil, &tok)
		api.must(t, admin, `mutation { createUser(username: "pat", password: "pat-PASSWORD-1") { id } }`, nil, nil)
		pat := api.login(t, "pat", "pat-PASSWORD-1")
		api.must(t, pat, `mutation { changePassword(oldPassword: "pat-PASSWORD-1", newPassword: "pat-PASSWORD-2") }`, nil, nil)
		_ = api.do(t, "", `mutation { login(username: "pat", password: "WRONG-PASSWORD-3") { token } }`, nil, nil)
		processor, _ := json.Marshal(map[string]any{"method": "POST", "url": "https://api.example.com/hook",
			"headers": map[string]string{"Authorization": "Bearer HEADER-SECRET-4", "X-Api-Key": "HEADER-SECRET-5"}})
		api.must(t, tok.CreateApiToken.Secret, `mutation($in: JobInput!) { createJob(input: $in) { id } }`, map[string]any{"in": map[string]any{
			"app": "orders", "name": "call", "scheduleType": "API", "processorType": "HTTP", "processor": string(processor),
			"params": `{"token": "PARAM-SECRET-6"}`,
			"alarm": map[string]any{"onFailure": true, "webhooks": []string{"https://hooks.slack.com/services/T0/B0/WEBHOOK-SECRET-7",
				"https://oapi.dingtalk.com/robot/send?access_token=WEBHOOK-SECRET-8"},
				"channels": []any{map[string]any{"type": "WECOM", "target": "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=WEBHOOK-SECRET-9"}}}}}, nil)

		secrets := []string{app.CreateApp.Secret, rotated.RotateAppSecret.Secret, tok.CreateApiToken.Secret, "pat-PASSWORD-1", "pat-PASSWORD-2",
			"WRONG-PASSWORD-3", "HEADER-SECRET-4", "HEADER-SECRET-5", "PARAM-SECRET-6", "WEBHOOK-SECRET-7", "WEBHOOK-SECRET-8", "WEBHOOK-SECRET-9", adminPassword}
		// Everything the API returns, and every stored row as it is.
		var page auditPage
		api.must(t, admin, auditQuery, map[string]any{"first": 500}, &page)
		if len(page.AuditLog.Edges) < 9 {
			t.Fatalf("only %d entries", len(page.AuditLog.Edges))
		}
		shown, _ := json.Marshal(page)
		var rows []db.AuditEntry
		if err := d.Bun().NewSelect().Model(&rows).Scan(t.Context()); err != nil {
			t.Fatal(err)
		}
		stored, _ := json.Marshal(rows)
		for _, s := range secrets {
			if s == "" {
				t.Fatal("a secret is empty")
			}
			for what, b := range map[string][]byte{"the API's answer": shown, "the audit_log table": stored} {
				if strings.Contains(string(b), s) {
					t.Errorf("%s holds the secret %q", what, s)
				}
			}
		}
		// What is recorded instead says what happened.
		for _, want := range []string{`"Field":"password"`, `"Field":"secret"`, "hooks.slack.com", "oapi.dingtalk.com", `"Authorization":"[redacted]"`, `"TokenName":"deploy"`} {
			if !strings.Contains(strings.ReplaceAll(string(shown), `\"`, `"`), want) {
				t.Errorf("the audit log lacks %s:\n%s", want, shown)
			}
		}
		if !strings.Contains(string(shown), `"Outcome":"UNAUTHENTICATED"`) {
			t.Errorf("the failed login is not on record with its outcome:\n%s", shown)
		}
	})
}

func changesOf(n auditNode, field string) []struct {
	Field         string
	Before, After any
} {
	var out []struct {
		Field         string
		Before, After any
	}
	for _, c := range n.Changes {
		if c.Field == field {
			out = append(out, c)
		}
	}
	return out
}
