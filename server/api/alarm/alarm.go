// Package alarm tells people when a job's instances or a workflow's runs
// fail, fail N times in a row, time out, start late, or recover, through
// the channels their alarm settings name: a webhook (a documented JSON
// document, Message), email (when the server has an SMTP relay), Slack,
// Feishu, DingTalk and WeCom incoming webhooks (each chat's text message).
//
// The scheduling path only hands observations over (InstanceEnded,
// InstanceStarted, WorkflowInstanceEnded) to a bounded queue, which a full
// queue drops with a log line; it never waits. One goroutine judges them
// against the rules (Evaluate) on each rule's state held in the database
// (alarm_states), so a restart, or another server taking the app over,
// neither repeats an alarm nor forgets a storm. Deliveries go through a
// second bounded queue to a few senders that retry with back-off, and each
// outcome (sent, silenced, failed to deliver, with the channel's answer)
// is recorded in the subject's history (alarm_history).
//
// Webhooks reach public addresses only (package netguard: loopback,
// private, link-local and metadata addresses are refused when connecting,
// unless Config.AllowNetworks allows them), so an app's editor cannot make
// the server call what only the server can reach. Channel URLs are never
// logged or recorded whole (Redact): chat URLs carry their key. Mail
// headers are built from parsed addresses and encoded text, so no job
// name or address can add a header.
package alarm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/server/platform/netguard"
)

// EventTest is the event of a test alarm.
const EventTest = "alarm.test"

// Config configures the sender.
type Config struct {
	// SMTPURL is smtp://user:password@host:port?from=address; empty: no
	// email.
	SMTPURL string
	// ConsoleURL is where the server's console is, for links in alarms.
	ConsoleURL string
	// AllowNetworks are the non-public address ranges webhooks may reach
	// (loopback, private, link-local are refused otherwise; see netguard).
	AllowNetworks []netip.Prefix
	// QueueSize bounds the observations waiting to be judged, and the
	// deliveries waiting to be made (each; default 1000).
	QueueSize int
	// Senders is how many deliveries are made at once (default 4).
	Senders int
	// Attempts per delivery (default 3); RetryBackoff is the first wait
	// between two (default 1 s, doubling).
	Attempts     int
	RetryBackoff time.Duration
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Sender judges observations and sends alarms.
type Sender struct {
	cfg Config
	log *slog.Logger
	db  *db.DB
	// reads serves the API's reads of alarm histories: the API's pool,
	// so that a flood of them waits there (ReadFrom).
	reads        *db.DB
	client       *http.Client
	clock        clock.Clock
	observations chan observation
	deliveries   chan delivery
	lifecycle.Base
}

// observation is one thing to judge, with what the alarm says of it.
type observation struct {
	kind  string // db.SubjectJob or db.SubjectWorkflow
	id    int64
	appID int64
	// alarm is the job's settings; a workflow's are read when judged.
	alarm db.Alarm
	o     Observation
	// msg is the alarm's subject and instance; the judge adds the rest.
	msg Message
}

// delivery is one alarm to one channel.
type delivery struct {
	ch  db.AlarmChannel
	msg *Message
	rec db.AlarmRecord
}

// New returns a Sender over the database; Start runs it.
func New(cfg Config, store *db.DB, log *slog.Logger) (*Sender, error) {
	if cfg.SMTPURL != "" {
		if err := CheckSMTPURL(cfg.SMTPURL); err != nil {
			return nil, fmt.Errorf("JOBWHEEL_SMTP_URL: %w", err)
		}
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 1000
	}
	if cfg.Senders <= 0 {
		cfg.Senders = 4
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = 3
	}
	if cfg.RetryBackoff <= 0 {
		cfg.RetryBackoff = time.Second
	}
	guard := netguard.Policy{Allow: cfg.AllowNetworks}
	return &Sender{cfg: cfg, log: log, db: store, client: guard.Client(10 * time.Second), clock: clock.OrSystem(cfg.Clock),
		observations: make(chan observation, cfg.QueueSize), deliveries: make(chan delivery, cfg.QueueSize)}, nil
}

// Start judges and sends until Stop.
func (s *Sender) Start(ctx context.Context) error {
	ctx, ok, started, stopped := s.StartInit(ctx)
	if !ok {
		return nil
	}
	var wg sync.WaitGroup
	wg.Add(1 + s.cfg.Senders)
	go func() {
		defer wg.Done()
		s.judge(ctx)
	}()
	for i := 0; i < s.cfg.Senders; i++ {
		go func() {
			defer wg.Done()
			s.send(ctx)
		}()
	}
	go func() {
		started()
		wg.Wait()
		stopped()
	}()
	return nil
}

// InstanceEnded hears of an instance that ended (FAILED after its
// retries, or SUCCEEDED); it queues it if the job's rules care.
func (s *Sender) InstanceEnded(app string, job *db.Job, in db.Instance) {
	a := &job.Alarm
	var o Observation
	switch in.Status {
	case db.StatusFailed:
		o = Observation{Outcome: Failed, Timeout: in.Reason == db.ReasonTimeout}
		if !a.Watches(db.AlarmFailure) && !a.Watches(db.AlarmConsecutive) && !(o.Timeout && a.Watches(db.AlarmTimeout)) {
			return
		}
	case db.StatusSucceeded:
		// Only a storm to end or a count to reset matters: rules that
		// need no success leave the path at once.
		if !a.Watches(db.AlarmRecovery) && !a.Watches(db.AlarmConsecutive) {
			return
		}
		o = Observation{Outcome: Succeeded}
	default:
		return
	}
	if !hasChannels(a) {
		return
	}
	s.queue(s.jobObservation(app, job, in, o))
}

// InstanceStarted hears of an instance dispatched; it queues it if the
// job has a START_LATE rule.
func (s *Sender) InstanceStarted(app string, job *db.Job, in db.Instance) {
	if !job.Alarm.Watches(db.AlarmStartLate) || !hasChannels(&job.Alarm) || in.ActualTriggerAt == nil {
		return
	}
	fire := in.TriggerAt
	if in.ExpectedTriggerAt != nil {
		fire = *in.ExpectedTriggerAt
	}
	s.queue(s.jobObservation(app, job, in, Observation{Outcome: Started, Late: in.ActualTriggerAt.Sub(fire)}))
}

// WorkflowInstanceEnded hears of a workflow run that ended; its workflow's
// settings (and app's name) are read when it is judged.
func (s *Sender) WorkflowInstanceEnded(run db.WorkflowInstance) {
	var o Observation
	switch run.Status {
	case db.WorkflowFailed:
		o = Observation{Outcome: Failed, Timeout: run.Reason == db.ReasonTimeout}
	case db.WorkflowSucceeded:
		o = Observation{Outcome: Succeeded}
	default:
		return
	}
	m := Message{WorkflowInstanceID: run.ID, Status: run.Status, Reason: run.Reason, Result: cut(run.Result, maxResult),
		Expected: run.ExpectedTriggerAt, Triggered: run.StartedAt, Finished: run.FinishedAt}
	s.queue(observation{kind: db.SubjectWorkflow, id: run.WorkflowID, appID: run.AppID, o: o, msg: m})
}

func (s *Sender) jobObservation(app string, job *db.Job, in db.Instance, o Observation) observation {
	m := Message{App: app, Job: &Ref{ID: job.ID, Name: job.Name}, InstanceID: in.ID, Status: in.Status, Reason: in.Reason,
		Result: cut(in.Result, maxResult), Attempt: in.Attempt, Expected: in.ExpectedTriggerAt, Triggered: in.ActualTriggerAt,
		Finished: in.FinishedAt}
	if o.Outcome == Started {
		m.Status, m.Reason, m.Result, m.Finished = in.Status, "", "", nil
	}
	if s.cfg.ConsoleURL != "" {
		m.InstanceURL = fmt.Sprintf("%s/apps/%s/instances/%d", strings.TrimRight(s.cfg.ConsoleURL, "/"), url.PathEscape(app), in.ID)
	}
	return observation{kind: db.SubjectJob, id: job.ID, appID: job.AppID, alarm: job.Alarm, o: o, msg: m}
}

func hasChannels(a *db.Alarm) bool {
	return len(a.Channels) > 0 || len(a.LegacyWebhooks) > 0 || len(a.LegacyEmails) > 0
}

func (s *Sender) queue(ob observation) {
	select {
	case s.observations <- ob:
	default:
		s.log.Warn("alarm: queue full; dropping an observation", "subject", ob.kind, "id", ob.id)
	}
}

func (s *Sender) judge(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case ob := <-s.observations:
			if err := s.judgeOne(ctx, ob); err != nil && ctx.Err() == nil {
				s.log.Error("alarm: judging an observation", "subject", ob.kind, "id", ob.id, "err", err)
			}
		}
	}
}

// eventNames name each rule's alarm, for jobs and for workflows.
var eventNames = map[string][2]string{
	db.AlarmFailure:     {"instance.failed", "workflow_instance.failed"},
	db.AlarmTimeout:     {"instance.timeout", "workflow_instance.timeout"},
	db.AlarmConsecutive: {"instance.consecutive_failures", "workflow_instance.consecutive_failures"},
	db.AlarmStartLate:   {"instance.start_late", "workflow_instance.start_late"},
	db.AlarmRecovery:    {"job.recovered", "workflow.recovered"},
}

// precedence orders the rules an alarm is named after when several send
// at once (one message, listing them all).
var precedence = []string{db.AlarmRecovery, db.AlarmStartLate, db.AlarmTimeout, db.AlarmConsecutive, db.AlarmFailure}

func (s *Sender) judgeOne(ctx context.Context, ob observation) error {
	if ob.kind == db.SubjectWorkflow {
		w, err := s.db.WorkflowGet(ctx, ob.id)
		if errors.Is(err, db.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		ob.alarm, ob.msg.Workflow = w.Alarm, &Ref{ID: w.ID, Name: w.Name}
		if !hasChannels(&ob.alarm) {
			return nil
		}
		app, err := s.db.AppGet(ctx, ob.appID)
		if err != nil {
			return err
		}
		ob.msg.App = app.Name
		if s.cfg.ConsoleURL != "" {
			ob.msg.InstanceURL = fmt.Sprintf("%s/apps/%s/workflow-instances/%d", strings.TrimRight(s.cfg.ConsoleURL, "/"),
				url.PathEscape(app.Name), ob.msg.WorkflowInstanceID)
		}
	}
	a := ob.alarm.Normalized()
	if len(a.Channels) == 0 {
		return nil
	}
	types := watched(a.Rules, ob.o)
	if len(types) == 0 {
		return nil
	}
	if ob.o.Outcome == Succeeded || ob.o.Outcome == Started && !isLate(a.Rules, ob.o.Late) {
		// Most successes and starts on time change nothing: read before
		// taking the rows.
		states, err := s.db.AlarmStateList(ctx, ob.kind, ob.id)
		if err != nil {
			return err
		}
		if quiet(states, ob.o) {
			return nil
		}
	}
	now := db.Stamp(s.clock.Now())
	var decisions []Decision
	err := s.db.AlarmStateUpdateMany(ctx, ob.kind, ob.id, types, now, func(states map[string]*db.AlarmState) ([]string, error) {
		var changed []string
		decisions, changed = Evaluate(a.Rules, states, ob.o, now)
		return changed, nil
	})
	if err != nil {
		return err
	}
	if len(decisions) == 0 {
		return nil
	}
	base := db.AlarmRecord{AppID: ob.appID, SubjectKind: ob.kind, SubjectID: ob.id, At: now}
	if ob.msg.InstanceID != 0 {
		base.InstanceID = &ob.msg.InstanceID
	}
	if ob.msg.WorkflowInstanceID != 0 {
		base.RunID = &ob.msg.WorkflowInstanceID
	}
	which := 0
	if ob.kind == db.SubjectWorkflow {
		which = 1
	}
	var silenced []db.AlarmRecord
	sending := map[string]Decision{}
	for _, d := range decisions {
		if d.Silenced {
			rec := base
			rec.Event, rec.Rule, rec.Outcome = eventNames[d.Rule.Type][which], d.Rule.Type, db.AlarmSilenced
			rec.Summary = fmt.Sprintf("silenced: the rule alarmed less than %s ago", time.Duration(d.Rule.SilenceSec)*time.Second)
			silenced = append(silenced, rec)
			continue
		}
		sending[d.Rule.Type] = d
	}
	if err := s.db.AlarmHistoryCreateMany(ctx, silenced); err != nil {
		return err
	}
	if len(sending) == 0 {
		return nil
	}
	m := ob.msg
	m.Version, m.Time = 1, now
	for _, typ := range precedence {
		d, ok := sending[typ]
		if !ok {
			continue
		}
		if m.Event == "" {
			m.Event = eventNames[typ][which]
		}
		m.Rules = append(m.Rules, typ)
		if typ == db.AlarmConsecutive {
			m.ConsecutiveFailures = d.Consecutive
		}
		if typ == db.AlarmStartLate {
			m.LatenessMs, m.ThresholdMs = ob.o.Late.Milliseconds(), d.Rule.Threshold
		}
	}
	m.describe()
	base.Event, base.Rule, base.Summary = m.Event, strings.Join(m.Rules, ","), cut(m.Text, 1000)
	for _, ch := range a.Channels {
		rec := base
		rec.Channel, rec.Target = ch.Type, Redact(ch.Target)
		select {
		case s.deliveries <- delivery{ch: ch, msg: &m, rec: rec}:
		default:
			rec.Outcome, rec.Answer = db.AlarmFailed, "not sent: the server's alarm queue is full"
			s.log.Warn("alarm: delivery queue full; dropping an alarm", "channel", ch.Type, "target", rec.Target, "event", m.Event)
			if err := s.db.AlarmHistoryCreateMany(ctx, []db.AlarmRecord{rec}); err != nil {
				return err
			}
		}
	}
	return nil
}

// isLate says whether a start is later than the START_LATE rule allows.
func isLate(rules []db.AlarmRule, by time.Duration) bool {
	for _, r := range rules {
		if r.Type == db.AlarmStartLate && by > time.Duration(r.Threshold)*time.Millisecond {
			return true
		}
	}
	return false
}

// quiet says whether a success or start finds nothing to end or reset.
func quiet(states map[string]*db.AlarmState, o Observation) bool {
	for rule, st := range states {
		if (o.Outcome == Started) != (rule == db.AlarmStartLate) {
			continue
		}
		if st.Storming || st.Consecutive > 0 {
			return false
		}
	}
	return true
}

func (s *Sender) send(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case d := <-s.deliveries:
			ans := s.deliver(ctx, d.ch, d.msg, s.cfg.Attempts)
			rec := d.rec
			rec.Outcome, rec.StatusCode, rec.Answer, rec.Attempts = db.AlarmSent, ans.StatusCode, ans.Answer, ans.Attempts
			if !ans.OK {
				rec.Outcome = db.AlarmFailed
				s.log.Warn("alarm: delivery failed", "channel", d.ch.Type, "target", rec.Target, "event", d.msg.Event,
					"status", ans.StatusCode, "answer", ans.Answer, "attempts", ans.Attempts)
			}
			// Recorded even as the server stops: the alarm was made.
			if err := s.db.AlarmHistoryCreateMany(context.WithoutCancel(ctx), []db.AlarmRecord{rec}); err != nil {
				s.log.Error("alarm: recording a delivery", "err", err)
			}
		}
	}
}

// Test is the subject of a test alarm.
type Test struct {
	AppID int64
	App   string
	// Kind is db.SubjectJob or db.SubjectWorkflow; ID and Name the job's
	// or workflow's.
	Kind  string
	ID    int64
	Name  string
	Alarm db.Alarm
	// By is who asked, for the history.
	By string
}

// SendTest sends a test alarm to each of the subject's channels now, once
// each (no retry, so the caller hears soon), records each answer in its
// history and returns them, in the channels' order.
func (s *Sender) SendTest(ctx context.Context, t Test) ([]Answer, error) {
	a := t.Alarm.Normalized()
	now := db.Stamp(s.clock.Now())
	m := Message{Version: 1, Event: EventTest, Rules: []string{}, App: t.App, Time: now}
	ref := &Ref{ID: t.ID, Name: t.Name}
	if t.Kind == db.SubjectWorkflow {
		m.Workflow = ref
	} else {
		m.Job = ref
	}
	m.describe()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	answers := make([]Answer, len(a.Channels))
	var wg sync.WaitGroup
	for i, ch := range a.Channels {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = s.deliver(ctx, ch, &m, 1)
		}()
	}
	wg.Wait()
	recs := make([]db.AlarmRecord, len(answers))
	for i, ans := range answers {
		recs[i] = db.AlarmRecord{AppID: t.AppID, SubjectKind: t.Kind, SubjectID: t.ID, At: now, Event: EventTest,
			Outcome: db.AlarmSent, Channel: ans.Channel, Target: ans.Target, StatusCode: ans.StatusCode, Answer: ans.Answer,
			Attempts: ans.Attempts, Summary: "test alarm sent by " + t.By}
		if !ans.OK {
			recs[i].Outcome = db.AlarmFailed
		}
	}
	if err := s.db.AlarmHistoryCreateMany(context.WithoutCancel(ctx), recs); err != nil {
		return nil, err
	}
	return answers, nil
}

// HistoryPage is a page of a subject's alarm history, newest first.
type HistoryPage struct {
	Records []db.AlarmRecord
	More    bool
	// Total counts the whole history, read from the same snapshot as the
	// page (-1 unless asked for).
	Total int
}

// ReadFrom has History read from d (the API's pool) rather than the
// database alarms are judged and sent from. Call it before serving.
func (s *Sender) ReadFrom(d *db.DB) { s.reads = d }

// History returns a page of a subject's alarm history after beforeID (0:
// from the newest), and with count its total, both from one snapshot so
// that they agree while deliveries land. The caller has checked the
// reader's rights.
func (s *Sender) History(ctx context.Context, kind string, id, beforeID int64, limit int, count bool) (*HistoryPage, error) {
	p := &HistoryPage{Total: -1}
	reads := s.reads
	if reads == nil {
		reads = s.db
	}
	err := reads.InSnapshot(ctx, func(ctx context.Context, tx *db.Store) error {
		recs, err := tx.AlarmHistoryList(ctx, db.AlarmHistoryFilter{SubjectKind: kind, SubjectID: id, BeforeID: beforeID, Limit: limit + 1})
		if err != nil {
			return err
		}
		p.Records = recs
		if len(recs) > limit {
			p.Records, p.More = recs[:limit], true
		}
		if count {
			p.Total, err = tx.AlarmHistoryCount(ctx, kind, id)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}
