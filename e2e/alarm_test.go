package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jobwheel/jobwheel/e2e/harness"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

// alarmReceiver is a local stand-in for a webhook and the four chats: it
// keeps every body POSTed to each path and answers as each chat does when
// it accepts a message (/broken answers 500).
type alarmReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	bodies map[string][]map[string]any
}

func newAlarmReceiver(t *testing.T) *alarmReceiver {
	r := &alarmReceiver{bodies: map[string][]map[string]any{}}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil || req.Method != http.MethodPost ||
			!strings.HasPrefix(req.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s %s: %s %q (%v)", req.Method, req.URL.Path, req.Header.Get("Content-Type"), b, err)
		}
		r.mu.Lock()
		r.bodies[req.URL.Path] = append(r.bodies[req.URL.Path], v)
		r.mu.Unlock()
		switch req.URL.Path {
		case "/broken":
			http.Error(w, "nope: the receiver is down", http.StatusInternalServerError)
		case "/feishu":
			_, _ = io.WriteString(w, `{"code":0,"msg":"success","data":{}}`)
		case "/dingtalk", "/wecom":
			_, _ = io.WriteString(w, `{"errcode":0,"errmsg":"ok"}`)
		default:
			_, _ = io.WriteString(w, "ok")
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *alarmReceiver) got(path string) []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.bodies[path])
}

type alarmRecord struct {
	Event, Rule, Outcome, Target, Answer string
	Channel                              *string
	StatusCode                           *int
	Attempts                             int
	InstanceID                           *string
}

// alarmHistory reads a job's whole alarm history through the API, page by
// page (two entries a page, so paging is exercised). Each page's
// totalCount is read with that page; when every page saw the same total,
// the pages must hold exactly that many. A delivery landing between two
// page requests changes the total: then the history is read again, until
// it holds still.
func (cl *cluster) alarmHistory(t *testing.T, jobID string) []alarmRecord {
	t.Helper()
	var all []alarmRecord
	testkit.Eventually(t, "the alarm history to hold still while it is paged through", func() bool {
		var stable bool
		all, stable = cl.alarmHistoryOnce(t, jobID)
		return stable
	})
	return all
}

func (cl *cluster) alarmHistoryOnce(t *testing.T, jobID string) (all []alarmRecord, stable bool) {
	t.Helper()
	var after *string
	totals := map[int]bool{}
	for {
		var out struct {
			Job struct {
				AlarmHistory struct {
					TotalCount int
					PageInfo   struct {
						HasNextPage bool
						EndCursor   *string
					}
					Edges []struct{ Node alarmRecord }
				}
			}
		}
		err := cl.c.Do(`query($id: ID!, $after: String) { job(id: $id) { alarmHistory(first: 2, after: $after) {
			totalCount pageInfo { hasNextPage endCursor }
			edges { node { event rule outcome channel target statusCode answer attempts instanceId } } } } }`,
			map[string]any{"id": jobID, "after": after}, &out)
		if err != nil {
			t.Fatal(err)
		}
		h := out.Job.AlarmHistory
		totals[h.TotalCount] = true
		for _, e := range h.Edges {
			all = append(all, e.Node)
		}
		if !h.PageInfo.HasNextPage {
			if len(totals) > 1 {
				return nil, false // something landed between two pages
			}
			if h.TotalCount != len(all) {
				t.Fatalf("every page said totalCount %d, but the pages hold %d", h.TotalCount, len(all))
			}
			return all, true
		}
		after = h.PageInfo.EndCursor
	}
}

// count counts the entries of an event and outcome (channel "" : any).
func countAlarms(recs []alarmRecord, event, outcome, channel string) int {
	n := 0
	for _, r := range recs {
		if r.Event == event && r.Outcome == outcome && (channel == "" || r.Channel != nil && *r.Channel == channel) {
			n++
		}
	}
	return n
}

// TestAlarmRules (issue 18, item 2): a real server and agent, and local
// receivers (loopback, which JOBWHEEL_ALARM_ALLOW_NETWORKS allows).
//   - A failing job alarms the webhook once per silence window with the
//     documented payload; the failure within the window is SILENCED; a
//     receiver answering 500 is FAILED with its answer; the first success
//     sends one recovery, the next success none, and a failure after the
//     recovery alarms again.
//   - Three consecutive failures alarm once under the N-consecutive rule
//     (N = 3), on Slack, Feishu, DingTalk and WeCom, each in its format;
//     the fourth is silenced.
//   - sendTestAlarm reaches every channel and returns each answer.
//   - The history, paged through the API, shows all of it.
func TestAlarmRules(t *testing.T) {
	t.Parallel()
	rx := newAlarmReceiver(t)
	cl := newClusterWith(t, harness.ServerOptions{Env: []string{"JOBWHEEL_ALARM_ALLOW_NETWORKS=127.0.0.1/32"}}, 1)

	flaky := cl.job(t, map[string]any{"name": "flaky", "processorType": "SHELL", "processor": `test "$JOBWHEEL_INSTANCE_PARAMS" = ok`,
		"alarm": map[string]any{
			"rules": []any{map[string]any{"type": "FAILURE", "silenceSec": 3600}, map[string]any{"type": "RECOVERY"}},
			"channels": []any{map[string]any{"type": "WEBHOOK", "target": rx.URL + "/webhook?key=s3cret"},
				map[string]any{"type": "WEBHOOK", "target": rx.URL + "/broken"}}}})
	runAndWait := func(job, params, want string) string {
		t.Helper()
		id := cl.runWith(t, job, params)
		cl.wait(t, id, want)
		return id
	}
	first := runAndWait(flaky, "", "FAILED")
	runAndWait(flaky, "", "FAILED")
	// Both failures judged: one sent (to each channel), one silenced.
	if !testkit.Poll(settle, func() bool {
		h := cl.alarmHistory(t, flaky)
		return countAlarms(h, "instance.failed", "SENT", "") == 1 && countAlarms(h, "instance.failed", "FAILED", "") == 1 &&
			countAlarms(h, "instance.failed", "SILENCED", "") == 1
	}) {
		t.Fatalf("history %+v\n%s", cl.alarmHistory(t, flaky), tail(cl.srv.Output(), 40))
	}
	hooks := rx.got("/webhook")
	if len(hooks) != 1 {
		t.Fatalf("the webhook got %d alarms within the silence window, want 1: %v", len(hooks), hooks)
	}
	a := hooks[0]
	job, _ := a["job"].(map[string]any)
	if a["version"] != 1.0 || a["event"] != "instance.failed" || a["app"] != cl.app || job["name"] != "flaky" ||
		a["instanceId"] != mustFloat(t, first) || a["status"] != "FAILED" ||
		!strings.Contains(a["result"].(string), "exit status 1") || !strings.Contains(a["text"].(string), "flaky") ||
		!strings.Contains(a["instanceUrl"].(string), "/apps/orders/instances/"+first) || a["time"] == nil {
		t.Fatalf("the webhook's alarm %v does not follow the documented payload", a)
	}
	if rules, _ := a["rules"].([]any); len(rules) != 1 || rules[0] != "FAILURE" {
		t.Fatalf("rules %v", a["rules"])
	}
	for _, r := range cl.alarmHistory(t, flaky) {
		if strings.Contains(r.Target, "s3cret") {
			t.Fatalf("the history shows the webhook's key: %+v", r)
		}
		if r.Outcome == "FAILED" && (r.StatusCode == nil || *r.StatusCode != 500 || !strings.Contains(r.Answer, "receiver is down") || r.Attempts != 3) {
			t.Fatalf("failed delivery %+v: want status 500, the answer, 3 attempts", r)
		}
	}

	// Recovery: once, at the first success.
	runAndWait(flaky, "ok", "SUCCEEDED")
	runAndWait(flaky, "ok", "SUCCEEDED")
	runAndWait(flaky, "", "FAILED") // after the recovery: alarms at once
	if !testkit.Poll(settle, func() bool {
		h := cl.alarmHistory(t, flaky)
		return countAlarms(h, "job.recovered", "SENT", "") == 1 && countAlarms(h, "instance.failed", "SENT", "") == 2
	}) {
		t.Fatalf("history %+v", cl.alarmHistory(t, flaky))
	}
	var events []string
	for _, b := range rx.got("/webhook") {
		events = append(events, b["event"].(string))
	}
	if !slices.Equal(events, []string{"instance.failed", "job.recovered", "instance.failed"}) {
		t.Fatalf("the webhook got %v, want a failure, one recovery, a failure", events)
	}

	// Three failures in a row, to the four chats.
	chats := []string{"SLACK", "FEISHU", "DINGTALK", "WECOM"}
	var channels []any
	for _, c := range chats {
		channels = append(channels, map[string]any{"type": c, "target": rx.URL + "/" + strings.ToLower(c)})
	}
	broken := cl.job(t, map[string]any{"name": "broken", "processorType": "SHELL", "processor": "exit 3",
		"alarm": map[string]any{"rules": []any{map[string]any{"type": "CONSECUTIVE_FAILURES", "threshold": 3, "silenceSec": 3600}},
			"channels": channels}})
	for i := 0; i < 3; i++ {
		runAndWait(broken, "", "FAILED")
	}
	if !testkit.Poll(settle, func() bool {
		return countAlarms(cl.alarmHistory(t, broken), "instance.consecutive_failures", "SENT", "") == 4
	}) {
		t.Fatalf("history %+v", cl.alarmHistory(t, broken))
	}
	runAndWait(broken, "", "FAILED")
	if !testkit.Poll(settle, func() bool {
		return countAlarms(cl.alarmHistory(t, broken), "instance.consecutive_failures", "SILENCED", "") == 1
	}) {
		t.Fatalf("history %+v", cl.alarmHistory(t, broken))
	}
	for _, c := range chats {
		got := rx.got("/" + strings.ToLower(c))
		if len(got) != 1 {
			t.Fatalf("%s got %d alarms, want 1 (three failures in a row, then silenced): %v", c, len(got), got)
		}
		checkChatFormat(t, c, got[0], "3 failures in a row")
	}

	// The test alarm: every channel, each answer returned and recorded.
	var out struct {
		SendTestAlarm []struct {
			Channel    string
			Target     string
			OK         bool
			StatusCode *int
			Answer     string
		}
	}
	if err := cl.c.Do(`mutation($id: ID!) { sendTestAlarm(jobId: $id) { channel target ok statusCode answer } }`,
		map[string]any{"id": broken}, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.SendTestAlarm) != 4 {
		t.Fatalf("sendTestAlarm answered %+v", out.SendTestAlarm)
	}
	for i, d := range out.SendTestAlarm {
		if d.Channel != chats[i] || !d.OK || d.StatusCode == nil || *d.StatusCode != 200 || d.Answer == "" {
			t.Fatalf("test alarm to %s: %+v", chats[i], d)
		}
		got := rx.got("/" + strings.ToLower(chats[i]))
		checkChatFormat(t, chats[i], got[len(got)-1], "test alarm")
	}
	if n := countAlarms(cl.alarmHistory(t, broken), "alarm.test", "SENT", ""); n != 4 {
		t.Fatalf("%d test alarms in the history, want 4", n)
	}
}

// checkChatFormat checks a chat message against its channel's documented
// incoming-webhook format, and that its text says want.
func checkChatFormat(t *testing.T, channel string, body map[string]any, want string) {
	t.Helper()
	var text string
	switch channel {
	case "SLACK":
		text, _ = body["text"].(string)
		blocks, _ := body["blocks"].([]any)
		if len(blocks) != 1 || blocks[0].(map[string]any)["type"] != "section" {
			t.Fatalf("Slack blocks %v", body["blocks"])
		}
	case "FEISHU":
		content, _ := body["content"].(map[string]any)
		if body["msg_type"] != "text" || content == nil {
			t.Fatalf("Feishu body %v", body)
		}
		text, _ = content["text"].(string)
	case "DINGTALK", "WECOM":
		content, _ := body["text"].(map[string]any)
		if body["msgtype"] != "text" || content == nil {
			t.Fatalf("%s body %v", channel, body)
		}
		text, _ = content["content"].(string)
	}
	if !strings.Contains(text, want) || !strings.Contains(text, "orders/broken") {
		t.Fatalf("%s text %q, want %q about orders/broken", channel, text, want)
	}
}

func mustFloat(t *testing.T, id string) float64 {
	t.Helper()
	var f float64
	if err := json.Unmarshal([]byte(id), &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestAlarmsBrowser: in Chromium, a job's Alarms tab sends a test alarm to
// a local receiver and shows its answer and the history entry; a
// workflow's Alarms tab saves its rules and sends a test alarm too
// (browser/console-alarms.test.mjs); the receiver got each test alarm.
func TestAlarmsBrowser(t *testing.T) {
	t.Parallel()
	chromium := harness.Chromium(t)
	rx := newAlarmReceiver(t)
	cl := newClusterWith(t, harness.ServerOptions{Env: []string{"JOBWHEEL_ALARM_ALLOW_NETWORKS=127.0.0.1/32"}}, 0)
	runBrowserTest(t, "console-alarms.test.mjs", chromium, cl.srv, "APP="+cl.app, "HOOK_URL="+rx.URL)
	got := rx.got("/browser")
	if len(got) != 1 || got[0]["event"] != "alarm.test" {
		t.Fatalf("the receiver got %v, want one test alarm", got)
	}
	got = rx.got("/browser-workflow")
	if len(got) != 1 || got[0]["event"] != "alarm.test" || got[0]["workflow"] == nil {
		t.Fatalf("the receiver got %v for the workflow, want one test alarm naming it", got)
	}
}

// TestWorkflowAlarms: a workflow's alarm judges its runs: a failed run
// alarms the webhook (workflow_instance.failed, naming the workflow and
// the run); saving the workflow without `alarm` keeps it; the next
// successful run sends one recovery; the history and the test alarm work
// for workflows as for jobs.
func TestWorkflowAlarms(t *testing.T) {
	t.Parallel()
	rx := newAlarmReceiver(t)
	cl := newClusterWith(t, harness.ServerOptions{Env: []string{"JOBWHEEL_ALARM_ALLOW_NETWORKS=127.0.0.1/32"}}, 1)
	step := cl.job(t, map[string]any{"name": "step", "scheduleType": "WORKFLOW", "processorType": "SHELL",
		"processor": `test "$JOBWHEEL_INSTANCE_PARAMS" = ok`})
	input := func(params string, alarm map[string]any) map[string]any {
		in := map[string]any{"app": cl.app, "name": "nightly", "scheduleType": "API",
			"nodes": []any{map[string]any{"key": "a", "type": "JOB", "jobId": step, "params": params}}, "edges": []any{}}
		if alarm != nil {
			in["alarm"] = alarm
		}
		return in
	}
	wf, err := cl.c.CreateWorkflow(input("no", map[string]any{
		"rules":    []any{map[string]any{"type": "FAILURE", "silenceSec": 3600}, map[string]any{"type": "RECOVERY"}},
		"channels": []any{map[string]any{"type": "WEBHOOK", "target": rx.URL + "/wf"}}}))
	if err != nil {
		t.Fatal(err)
	}
	run := func(want string) string {
		t.Helper()
		id, err := cl.c.RunWorkflow(wf, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.c.WaitWorkflowInstance(id, settle, want); err != nil {
			t.Fatalf("%v\n%s", err, tail(cl.srv.Output(), 40))
		}
		return id
	}
	failedInstance := run("FAILED")
	if !testkit.Poll(settle, func() bool { return len(rx.got("/wf")) == 1 }) {
		t.Fatalf("no workflow alarm arrived\n%s", tail(cl.srv.Output(), 40))
	}
	a := rx.got("/wf")[0]
	w, _ := a["workflow"].(map[string]any)
	if a["event"] != "workflow_instance.failed" || w["name"] != "nightly" || a["workflowInstanceId"] != mustFloat(t, failedInstance) ||
		a["job"] != nil || !strings.Contains(a["instanceUrl"].(string), "/workflow-instances/"+failedInstance) {
		t.Fatalf("workflow alarm %v", a)
	}
	// Saved again without `alarm`: the alarm stays.
	if err := cl.c.Do(`mutation($id: ID!, $in: WorkflowInput!) { updateWorkflow(id: $id, input: $in) { id } }`,
		map[string]any{"id": wf, "in": input("ok", nil)}, nil); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Workflow struct {
			Alarm struct{ Rules []struct{ Type string } }
		}
	}
	if err := cl.c.Do(`query($id: ID!) { workflow(id: $id) { alarm { rules { type } } } }`, map[string]any{"id": wf}, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Workflow.Alarm.Rules) != 2 {
		t.Fatalf("after a save without alarm: rules %+v, want the two kept", got.Workflow.Alarm.Rules)
	}
	run("SUCCEEDED")
	run("SUCCEEDED")
	if !testkit.Poll(settle, func() bool {
		var h struct {
			Workflow struct{ AlarmHistory struct{ TotalCount int } }
		}
		_ = cl.c.Do(`query($id: ID!) { workflow(id: $id) { alarmHistory { totalCount } } }`, map[string]any{"id": wf}, &h)
		return h.Workflow.AlarmHistory.TotalCount == 2
	}) {
		t.Fatal("the workflow's history does not show the failure and the recovery")
	}
	var events []string
	for _, b := range rx.got("/wf") {
		events = append(events, b["event"].(string))
	}
	if !slices.Equal(events, []string{"workflow_instance.failed", "workflow.recovered"}) {
		t.Fatalf("the webhook got %v, want the failure and one recovery", events)
	}
	var test struct{ SendTestAlarm []struct{ OK bool } }
	if err := cl.c.Do(`mutation($id: ID!) { sendTestAlarm(workflowId: $id) { ok } }`, map[string]any{"id": wf}, &test); err != nil {
		t.Fatal(err)
	}
	if len(test.SendTestAlarm) != 1 || !test.SendTestAlarm[0].OK {
		t.Fatalf("test alarm: %+v", test.SendTestAlarm)
	}
}
