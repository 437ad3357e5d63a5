package graph

import (
	"slices"
	"strings"
	"testing"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

// TestAlarmSettings: bad rules and channels are BAD_INPUT naming the rule
// or channel at fault (nothing saved, the key of a chat URL not echoed);
// the deprecated fields still work and read back from the rules and
// channels they became; a workflow takes no START_LATE rule.
func TestAlarmSettings(t *testing.T) {
	t.Parallel()
	api := newAPI(t, dbtest.Open(t, db.SQLite), apiOptions{})
	admin := api.admin(t)
	api.createApp(t, admin, "orders")
	job := func(alarm map[string]any) map[string]any {
		return map[string]any{"in": map[string]any{"app": "orders", "name": "sync", "scheduleType": "API", "processorType": "SHELL",
			"processor": "true", "alarm": alarm}}
	}
	rule := func(typ string, extra ...any) map[string]any {
		r := map[string]any{"type": typ}
		for i := 0; i+1 < len(extra); i += 2 {
			r[extra[i].(string)] = extra[i+1]
		}
		return r
	}
	slack := map[string]any{"type": "SLACK", "target": "https://hooks.slack.com/services/T0/B0/KEY-123"}
	for _, tc := range []struct {
		name, field string
		alarm       map[string]any
	}{
		{"a rule twice", "alarm.rules[1].type", map[string]any{"rules": []any{rule("FAILURE"), rule("FAILURE")}}},
		{"N below 2", "alarm.rules[0].threshold", map[string]any{"rules": []any{rule("CONSECUTIVE_FAILURES", "threshold", 1)}}},
		{"no lateness", "alarm.rules[0].threshold", map[string]any{"rules": []any{rule("START_LATE")}}},
		{"a threshold FAILURE does not take", "alarm.rules[0].threshold", map[string]any{"rules": []any{rule("FAILURE", "threshold", 3)}}},
		{"a negative silence", "alarm.rules[0].silenceSec", map[string]any{"rules": []any{rule("TIMEOUT", "silenceSec", -1)}}},
		{"recovery alone", "alarm.rules", map[string]any{"rules": []any{rule("RECOVERY")}}},
		{"not a URL", "alarm.channels[1].target", map[string]any{"channels": []any{slack, map[string]any{"type": "WECOM", "target": "ftp://x/key=SECRET-9"}}}},
		{"loopback", "alarm.channels[0].target", map[string]any{"channels": []any{map[string]any{"type": "FEISHU", "target": "http://127.0.0.1/hook/SECRET-9"}}}},
		{"not an address", "alarm.channels[0].target", map[string]any{"channels": []any{map[string]any{"type": "EMAIL", "target": "ops"}}}},
		{"a channel twice", "alarm.channels[1].target", map[string]any{"channels": []any{slack, slack}}},
	} {
		r := api.do(t, admin, `mutation($in: JobInput!) { createJob(input: $in) { id } }`, job(tc.alarm), nil)
		if r.code() != CodeBadInput || r.Errors[0].field() != tc.field {
			t.Errorf("%s: %+v; want BAD_INPUT on %s", tc.name, r.Errors, tc.field)
		} else if strings.Contains(r.Errors[0].Message, "SECRET-9") {
			t.Errorf("%s: the error echoes the URL's key: %s", tc.name, r.Errors[0].Message)
		}
	}

	// The deprecated fields: saved as rules and channels, read back both ways.
	var out struct {
		CreateJob struct {
			Alarm struct {
				OnFailure, OnTimeout bool
				Webhooks, Emails     []string
				SilenceSec           int
				Rules                []struct {
					Type       string
					SilenceSec int
				}
				Channels []struct{ Type, Target string }
			}
		}
	}
	api.must(t, admin, `mutation($in: JobInput!) { createJob(input: $in) { alarm { onFailure onTimeout webhooks emails silenceSec
		rules { type silenceSec } channels { type target } } } }`,
		job(map[string]any{"onFailure": true, "webhooks": []string{"https://ops.example.com/hook"}, "emails": []string{"ops@example.com"},
			"silenceSec": 300, "rules": []any{rule("RECOVERY")}, "channels": []any{slack}}), &out)
	a := out.CreateJob.Alarm
	if !a.OnFailure || a.OnTimeout || a.SilenceSec != 300 || !slices.Equal(a.Webhooks, []string{"https://ops.example.com/[redacted]"}) ||
		!slices.Equal(a.Emails, []string{"ops@example.com"}) || len(a.Rules) != 2 || a.Rules[1].Type != "FAILURE" ||
		a.Rules[1].SilenceSec != 300 || len(a.Channels) != 3 || a.Channels[0].Type != "SLACK" {
		t.Fatalf("alarm read back as %+v", a)
	}

	// Workflows: their runs have no start to be late.
	jobID := api.createJob(t, admin, "orders", "step")
	r := api.do(t, admin, `mutation($in: WorkflowInput!) { createWorkflow(input: $in) { id } }`, map[string]any{"in": map[string]any{
		"app": "orders", "name": "flow", "scheduleType": "API", "nodes": []any{map[string]any{"key": "a", "type": "JOB", "jobId": jobID}},
		"edges": []any{}, "alarm": map[string]any{"rules": []any{rule("START_LATE", "threshold", 1000)}}}}, nil)
	if r.code() != CodeBadInput || r.Errors[0].field() != "alarm.rules[0].type" {
		t.Fatalf("a workflow with START_LATE: %+v", r.Errors)
	}
}
