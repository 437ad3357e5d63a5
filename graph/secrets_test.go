package graph

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// TestSecretsAreWriteOnly (issue 25, item 5): an HTTP job's header values
// and alarm channel URLs are shown redacted to a VIEWER and an EDITOR
// alike, in the job, its versions and a workflow's alarm; an EDITOR who
// saves back what was shown keeps the stored secrets, one who sends a new
// value changes it, and the marker where nothing is stored is refused.
func TestSecretsAreWriteOnly(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		api := newAPI(t, d, apiOptions{})
		admin := api.admin(t)
		api.createApp(t, admin, "orders")
		editor := api.createUser(t, admin, "eve")
		viewer := api.createUser(t, admin, "vera")
		api.setRole(t, admin, "orders", "eve", "EDITOR")
		api.setRole(t, admin, "orders", "vera", "VIEWER")

		processor, _ := json.Marshal(map[string]any{"method": "POST", "url": "https://api.example.com/hook",
			"headers": map[string]string{"Authorization": "Bearer HEADER-SECRET-1", "Content-Type": "application/json"}})
		channels := []any{
			map[string]any{"type": "SLACK", "target": "https://hooks.slack.com/services/T0/B0/SLACK-SECRET-2"},
			map[string]any{"type": "WEBHOOK", "target": "https://ops.example.com/alarm?token=HOOK-SECRET-3"},
			map[string]any{"type": "EMAIL", "target": "ops@example.com"},
		}
		in := map[string]any{"app": "orders", "name": "call", "scheduleType": "API", "processorType": "HTTP", "processor": string(processor),
			"alarm": map[string]any{"rules": []any{map[string]any{"type": "FAILURE"}}, "channels": channels}}
		var created struct{ CreateJob struct{ ID string } }
		api.must(t, editor, `mutation($in: JobInput!) { createJob(input: $in) { id } }`, map[string]any{"in": in}, &created)
		id := created.CreateJob.ID
		secretsOf := []string{"HEADER-SECRET-1", "SLACK-SECRET-2", "HOOK-SECRET-3"}

		const read = `query($id: ID!) { job(id: $id) { processor alarm { webhooks channels { type target } }
			versions { processor definition } } }`
		type shown struct {
			Job struct {
				Processor string
				Alarm     struct {
					Webhooks []string
					Channels []struct{ Type, Target string }
				}
				Versions []struct {
					Processor  string
					Definition map[string]any
				}
			}
		}
		for who, token := range map[string]string{"VIEWER": viewer, "EDITOR": editor} {
			var out shown
			api.must(t, token, read, map[string]any{"id": id}, &out)
			raw, _ := json.Marshal(out)
			for _, s := range secretsOf {
				if strings.Contains(string(raw), s) {
					t.Errorf("%s reads %s: %s", who, s, raw)
				}
			}
			if !strings.Contains(out.Job.Processor, `"Authorization":"[redacted]"`) || !strings.Contains(out.Job.Processor, "api.example.com") ||
				!strings.Contains(out.Job.Processor, `"Content-Type":"application/json"`) {
				t.Errorf("%s: processor shown as %s", who, out.Job.Processor)
			}
			c := out.Job.Alarm.Channels
			if len(c) != 3 || c[0].Target != "https://hooks.slack.com/[redacted]" || c[1].Target != "https://ops.example.com/[redacted]" || c[2].Target != "ops@example.com" {
				t.Errorf("%s: channels shown as %+v", who, c)
			}
			if len(out.Job.Versions) == 0 {
				t.Errorf("%s: no versions", who)
			}
		}

		// The EDITOR saves back what was shown, with another description:
		// the stored secrets stand.
		var out shown
		api.must(t, editor, read, map[string]any{"id": id}, &out)
		back := []any{}
		for _, c := range out.Job.Alarm.Channels {
			back = append(back, map[string]any{"type": c.Type, "target": c.Target})
		}
		in["processor"], in["description"] = out.Job.Processor, "edited"
		in["alarm"] = map[string]any{"rules": []any{map[string]any{"type": "FAILURE"}}, "channels": back}
		api.must(t, editor, `mutation($id: ID!, $in: JobInput!) { updateJob(id: $id, input: $in) { id } }`, map[string]any{"id": id, "in": in}, nil)
		stored, err := d.JobGet(t.Context(), mustInt(t, id))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stored.Processor, "Bearer HEADER-SECRET-1") || stored.Description != "edited" {
			t.Errorf("after saving back what was shown, the processor is %s", stored.Processor)
		}
		if ch := stored.Alarm.Channels; len(ch) != 3 || ch[0].Target != "https://hooks.slack.com/services/T0/B0/SLACK-SECRET-2" ||
			ch[1].Target != "https://ops.example.com/alarm?token=HOOK-SECRET-3" {
			t.Errorf("after saving back what was shown, the channels are %+v", ch)
		}

		// A new value replaces the stored one.
		changed := strings.Replace(out.Job.Processor, `"Authorization":"[redacted]"`, `"Authorization":"Bearer NEW-4"`, 1)
		in["processor"] = changed
		api.must(t, editor, `mutation($id: ID!, $in: JobInput!) { updateJob(id: $id, input: $in) { id } }`, map[string]any{"id": id, "in": in}, nil)
		if stored, _ = d.JobGet(t.Context(), mustInt(t, id)); !strings.Contains(stored.Processor, "Bearer NEW-4") {
			t.Errorf("a new header value was not saved: %s", stored.Processor)
		}

		// The marker where nothing is stored: refused, naming the field.
		in2 := map[string]any{"app": "orders", "name": "other", "scheduleType": "API", "processorType": "HTTP", "processor": out.Job.Processor}
		if r := api.do(t, editor, `mutation($in: JobInput!) { createJob(input: $in) { id } }`, map[string]any{"in": in2}, nil); r.code() != CodeBadInput || r.Errors[0].field() != "processor" {
			t.Errorf("a new job with a redacted header: %+v", r.Errors)
		}
		in2["processor"] = string(processor)
		in2["alarm"] = map[string]any{"rules": []any{map[string]any{"type": "FAILURE"}}, "channels": back[:1]}
		if r := api.do(t, editor, `mutation($in: JobInput!) { createJob(input: $in) { id } }`, map[string]any{"in": in2}, nil); r.code() != CodeBadInput || r.Errors[0].field() != "alarm.channels[0].target" {
			t.Errorf("a new job with a redacted channel: %+v", r.Errors)
		}

		// A workflow's alarm: the same rule.
		var wf struct{ CreateWorkflow struct{ ID string } }
		wfIn := map[string]any{"app": "orders", "name": "flow", "scheduleType": "API", "nodes": []any{map[string]any{"key": "a", "type": "JOB", "jobId": id}}, "edges": []any{},
			"alarm": map[string]any{"rules": []any{map[string]any{"type": "FAILURE"}}, "channels": channels[:1]}}
		api.must(t, editor, `mutation($in: WorkflowInput!) { createWorkflow(input: $in) { id } }`, map[string]any{"in": wfIn}, &wf)
		var wout struct {
			Workflow struct {
				Alarm struct {
					Channels []struct{ Type, Target string }
				}
			}
		}
		api.must(t, viewer, `query($id: ID!) { workflow(id: $id) { alarm { channels { type target } } } }`, map[string]any{"id": wf.CreateWorkflow.ID}, &wout)
		if c := wout.Workflow.Alarm.Channels; len(c) != 1 || c[0].Target != "https://hooks.slack.com/[redacted]" {
			t.Errorf("workflow channels shown as %+v", c)
		}
		wfIn["alarm"] = map[string]any{"rules": []any{map[string]any{"type": "FAILURE"}}, "channels": back[:1]}
		wfIn["description"] = "edited"
		api.must(t, editor, `mutation($id: ID!, $in: WorkflowInput!) { updateWorkflow(id: $id, input: $in) { id } }`,
			map[string]any{"id": wf.CreateWorkflow.ID, "in": wfIn}, nil)
		w, err := d.WorkflowGet(t.Context(), mustInt(t, wf.CreateWorkflow.ID))
		if err != nil {
			t.Fatal(err)
		}
		if c := w.Alarm.Channels; len(c) != 1 || c[0].Target != "https://hooks.slack.com/services/T0/B0/SLACK-SECRET-2" || w.Description != "edited" {
			t.Errorf("workflow saved back: %+v %q", c, w.Description)
		}
	})
}
