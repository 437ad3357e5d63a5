package importer

import (
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/jobwheel/jobwheel/cmd/jobwheel/internal/manifest"
)

// Bounds of jobwheel's job fields (the API refuses values outside).
const (
	maxConcurrency = 10000
	maxRetries     = 100
	maxQueued      = 1000
	maxTimeoutMs   = math.MaxInt32
	minInterval    = time.Second
	maxInterval    = 366 * 24 * time.Hour
)

// interval is a schedule's interval as jobwheel writes it ("30s",
// "1m30s"), brought within jobwheel's bounds with a note if it was not.
func (o *Object) interval(d time.Duration, what string) string {
	switch {
	case d < minInterval:
		o.person("%s of %s is below jobwheel's shortest interval: it runs every %s", what, d, minInterval)
		d = minInterval
	case d > maxInterval:
		o.person("%s of %s is above jobwheel's longest interval: it runs every %s", what, d, maxInterval)
		d = maxInterval
	}
	return d.String()
}

// clamp brings n within [lo, hi], noting a change.
func (o *Object) clamp(n, lo, hi int, field, source string) int {
	switch {
	case n < lo:
		o.approx("%s %d is below jobwheel's least %s, %d: %d", source, n, field, lo, lo)
		return lo
	case n > hi:
		o.approx("%s %d is above jobwheel's most %s, %d: %d", source, n, field, hi, hi)
		return hi
	}
	return n
}

// timeoutMs is a timeout in milliseconds within jobwheel's bounds.
func (o *Object) timeoutMs(ms int64, source string) *int {
	switch {
	case ms <= 0:
		return nil
	case ms > maxTimeoutMs:
		o.approx("%s %d ms is above jobwheel's longest timeout: %d ms (%s)", source, ms, maxTimeoutMs, time.Duration(maxTimeoutMs)*time.Millisecond)
		ms = maxTimeoutMs
	}
	return new(int(ms))
}

// description fits a description into jobwheel's 2000 bytes.
func (o *Object) description(s string) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if len(s) > maxDescription {
		o.approx("the description is %d bytes; jobwheel keeps the first %d", len(s), maxDescription)
		s = truncateBytes(s, maxDescription)
	}
	return &s
}

// channelOf is an alarm channel for a webhook URL: the IM robots jobwheel
// knows by host, any other http(s) URL as a plain webhook.
func channelOf(hook string) (manifest.AlarmChannel, bool) {
	u, err := url.Parse(strings.TrimSpace(hook))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return manifest.AlarmChannel{}, false
	}
	typ := "WEBHOOK"
	switch {
	case strings.HasSuffix(u.Host, "dingtalk.com"):
		typ = "DINGTALK"
	case strings.HasSuffix(u.Host, "qyapi.weixin.qq.com"):
		typ = "WECOM"
	case strings.HasSuffix(u.Host, "feishu.cn") || strings.HasSuffix(u.Host, "larksuite.com"):
		typ = "FEISHU"
	case strings.HasSuffix(u.Host, "hooks.slack.com"):
		typ = "SLACK"
	}
	return manifest.AlarmChannel{Type: typ, Target: strings.TrimSpace(hook)}, true
}

// emailChannel is an EMAIL alarm channel, or a note on an address
// jobwheel would refuse (it reads addresses as net/mail does).
func emailChannel(o *Object, addr, what string) (manifest.AlarmChannel, bool) {
	a, err := mail.ParseAddress(addr)
	if err != nil {
		o.person("%s %q is not an email address: not carried over", what, addr)
		return manifest.AlarmChannel{}, false
	}
	return manifest.AlarmChannel{Type: "EMAIL", Target: a.Address}, true
}

// lifecycle is a [start, end] window of epoch milliseconds as RFC 3339.
func lifecycle(startMs, endMs int64) *manifest.Lifecycle {
	if startMs <= 0 && endMs <= 0 {
		return nil
	}
	l := &manifest.Lifecycle{}
	if startMs > 0 {
		l.Start = new(time.UnixMilli(startMs).UTC().Format(time.RFC3339))
	}
	if endMs > 0 {
		l.End = new(time.UnixMilli(endMs).UTC().Format(time.RFC3339))
	}
	return l
}

// scheduleSummary says a job's schedule in a few words.
func scheduleSummary(s *manifest.JobSpec) string {
	sched := s.ScheduleType
	if s.ScheduleExpression != nil && *s.ScheduleExpression != "" {
		sched += " " + *s.ScheduleExpression
	}
	if s.ScheduleWindow != nil {
		sched += fmt.Sprintf(" from %s to %s", s.ScheduleWindow.Start, s.ScheduleWindow.End)
		if len(s.ScheduleWindow.Days) > 0 {
			sched += " on " + strings.Join(s.ScheduleWindow.Days, ",")
		}
	}
	return sched
}

// jobSummary says in a line what a job becomes.
func jobSummary(s *manifest.JobSpec) string {
	parts := []string{scheduleSummary(s)}
	switch s.ProcessorType {
	case "GO":
		parts = append(parts, "processor "+s.Processor)
	case "HTTP":
		parts = append(parts, "HTTP request")
	default:
		parts = append(parts, scriptSummary(s.ProcessorType, s.Processor))
	}
	if s.ExecutionMode != nil && *s.ExecutionMode != "STANDALONE" {
		parts = append(parts, *s.ExecutionMode)
	}
	return strings.Join(parts, ", ")
}

func workflowSummary(s *manifest.WorkflowSpec) string {
	sched := s.ScheduleType
	if s.ScheduleExpression != nil && *s.ScheduleExpression != "" {
		sched += " " + *s.ScheduleExpression
	}
	return fmt.Sprintf("%s, %s, %s", sched, count(len(s.Nodes), "node"), count(len(s.Edges), "edge"))
}

// count is "1 node", "2 nodes".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
