package alarm

import (
	"encoding/json"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jobwheel/jobwheel/db"
)

// Message is an alarm: the JSON document a WEBHOOK channel is POSTed
// (version 1; README "Alarms" documents it), and what chat messages and
// mails are written from. Fields added later are optional; none is
// removed or changes meaning within a version.
type Message struct {
	// Version of the document: 1.
	Version int `json:"version"`
	// Event is what happened: instance.failed, instance.timeout,
	// instance.consecutive_failures, instance.start_late, job.recovered;
	// workflow_instance.failed, workflow_instance.timeout,
	// workflow_instance.consecutive_failures, workflow.recovered; or
	// alarm.test.
	Event string `json:"event"`
	// Rules are the rules that raised it (FAILURE, CONSECUTIVE_FAILURES,
	// TIMEOUT, START_LATE, RECOVERY); empty for a test.
	Rules []string `json:"rules"`
	App   string   `json:"app"`
	// Job is set for a job's alarms, Workflow for a workflow's.
	Job      *Ref `json:"job,omitempty"`
	Workflow *Ref `json:"workflow,omitempty"`
	// InstanceID is the job instance concerned (0 for a workflow's or a
	// test alarm); WorkflowInstanceID the workflow run.
	InstanceID         int64 `json:"instanceId,omitempty"`
	WorkflowInstanceID int64 `json:"workflowInstanceId,omitempty"`
	// Status, Reason, Result and Attempt are the instance's (or run's) as
	// it ended; Result is cut to 2,000 characters.
	Status  string `json:"status,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Result  string `json:"result,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
	// ConsecutiveFailures is the failures in a row so far
	// (CONSECUTIVE_FAILURES).
	ConsecutiveFailures int `json:"consecutiveFailures,omitempty"`
	// LatenessMs is fire → start lateness (START_LATE), ThresholdMs its
	// rule's threshold.
	LatenessMs  int64      `json:"latenessMs,omitempty"`
	ThresholdMs int64      `json:"thresholdMs,omitempty"`
	Expected    *time.Time `json:"expectedTriggerTime,omitempty"`
	Triggered   *time.Time `json:"actualTriggerTime,omitempty"`
	Finished    *time.Time `json:"finishedTime,omitempty"`
	// InstanceURL is the instance's (or run's) page in the console.
	InstanceURL string `json:"instanceUrl,omitempty"`
	// Time is when the alarm was raised.
	Time time.Time `json:"time"`
	// Text is the alarm in one or two lines, as chat channels show it.
	Text string `json:"text"`
}

// Ref names a job or a workflow in an alarm.
type Ref struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// maxResult bounds the result an alarm carries; maxText the chat text
// (WeCom takes 2,048 bytes).
const (
	maxResult = 2000
	maxText   = 1800
)

// subjectName is "app/job" or "app/workflow".
func (m *Message) subjectName() string {
	switch {
	case m.Job != nil:
		return m.App + "/" + m.Job.Name
	case m.Workflow != nil:
		return m.App + "/" + m.Workflow.Name + " (workflow)"
	}
	return m.App
}

// describe writes Text from the other fields.
func (m *Message) describe() {
	var b strings.Builder
	fmt.Fprintf(&b, "[jobwheel] %s: ", oneLine(m.subjectName()))
	what := "instance"
	id := m.InstanceID
	if m.Workflow != nil {
		what, id = "run", m.WorkflowInstanceID
	}
	switch {
	case m.Event == EventTest:
		b.WriteString("test alarm. If you read this, alarms reach this channel.")
	case strings.HasSuffix(m.Event, ".recovered"):
		fmt.Fprintf(&b, "recovered: %s %d succeeded.", what, id)
	case strings.HasSuffix(m.Event, ".start_late"):
		fmt.Fprintf(&b, "%s %d started %s after its fire (more than %s).", what, id,
			time.Duration(m.LatenessMs)*time.Millisecond, time.Duration(m.ThresholdMs)*time.Millisecond)
	default:
		if m.ConsecutiveFailures > 1 && strings.HasSuffix(m.Event, ".consecutive_failures") {
			fmt.Fprintf(&b, "%d failures in a row; ", m.ConsecutiveFailures)
		}
		verb := "failed"
		if strings.HasSuffix(m.Event, ".timeout") || m.Reason == db.ReasonTimeout {
			verb = "timed out"
		}
		fmt.Fprintf(&b, "%s %d %s", what, id, verb)
		if m.Reason != "" && m.Reason != db.ReasonTimeout && m.Reason != "FAILED" {
			fmt.Fprintf(&b, " (%s)", m.Reason)
		}
		if m.Attempt > 1 {
			fmt.Fprintf(&b, " at attempt %d", m.Attempt)
		}
		if r := strings.TrimSpace(oneLine(m.Result)); r != "" {
			fmt.Fprintf(&b, ": %s", cut(r, 300))
		}
		b.WriteString(".")
	}
	if m.InstanceURL != "" {
		b.WriteString("\n" + m.InstanceURL)
	}
	m.Text = cut(b.String(), maxText)
}

// cut shortens s to at most n bytes, on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// body is what a channel is POSTed: the Message itself for WEBHOOK, each
// chat's documented incoming-webhook text message otherwise.
func body(channel string, m *Message) ([]byte, error) {
	switch channel {
	case db.ChannelSlack:
		// https://api.slack.com/messaging/webhooks: text (the fallback and
		// notification) and blocks; &, < and > must be escaped.
		text := slackEscape(m.Text)
		return json.Marshal(map[string]any{"text": text, "blocks": []any{
			map[string]any{"type": "section", "text": map[string]any{"type": "mrkdwn", "text": text}},
		}})
	case db.ChannelFeishu:
		// Feishu/Lark custom bot: {"msg_type":"text","content":{"text":…}}.
		return json.Marshal(map[string]any{"msg_type": "text", "content": map[string]any{"text": m.Text}})
	case db.ChannelDingTalk, db.ChannelWeCom:
		// DingTalk custom robot and WeCom group robot: the same text form.
		return json.Marshal(map[string]any{"msgtype": "text", "text": map[string]any{"content": m.Text}})
	default:
		return json.Marshal(m)
	}
}

func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// accepted says whether a chat's answer means the message was taken: a
// 2xx status, and for Feishu, DingTalk and WeCom (which answer 200 to a
// refused message) a zero code in the JSON body.
func accepted(channel string, status int, answer []byte) bool {
	if status < 200 || status > 299 {
		return false
	}
	var codes struct {
		Code       *int `json:"code"`
		StatusCode *int `json:"StatusCode"`
		ErrCode    *int `json:"errcode"`
	}
	switch channel {
	case db.ChannelFeishu:
		if json.Unmarshal(answer, &codes) == nil {
			if codes.Code != nil && *codes.Code != 0 || codes.StatusCode != nil && *codes.StatusCode != 0 {
				return false
			}
		}
	case db.ChannelDingTalk, db.ChannelWeCom:
		if json.Unmarshal(answer, &codes) == nil && codes.ErrCode != nil && *codes.ErrCode != 0 {
			return false
		}
	}
	return true
}

// compose makes the alarm mail. Every header is built from parsed
// addresses and encoded text (RFC 2047), so nothing a user typed (a job
// name, an address) can add a header or end the header block; the
// recipients are the parsed addresses.
func compose(from *mail.Address, to []string, m *Message, now time.Time) (msg []byte, rcpt []string, err error) {
	var heads []string
	for _, raw := range to {
		a, err := mail.ParseAddress(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("recipient %q: %w", raw, err)
		}
		rcpt = append(rcpt, a.Address)
		heads = append(heads, a.String())
	}
	subject, _, _ := strings.Cut(m.Text, "\n")
	var b strings.Builder
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	header("From", from.String())
	header("To", strings.Join(heads, ", "))
	header("Subject", mime.QEncoding.Encode("utf-8", oneLine(cut(subject, 200))))
	header("Date", now.Format(time.RFC1123Z))
	header("MIME-Version", "1.0")
	header("Content-Type", "text/plain; charset=utf-8")
	header("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	var text strings.Builder
	text.WriteString(strings.ReplaceAll(m.Text, "\n", "\r\n") + "\r\n")
	if m.Result != "" {
		fmt.Fprintf(&text, "\r\n%s\r\n", m.Result)
	}
	// Quoted-printable keeps the body's lines short and its bytes 7-bit,
	// whatever the instance's result holds.
	qp := quotedprintable.NewWriter(&b)
	_, _ = qp.Write([]byte(text.String()))
	_ = qp.Close()
	return []byte(b.String()), rcpt, nil
}

// oneLine replaces control characters (which names cannot hold, but
// results can) with spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return ' '
		}
		return r
	}, s)
}
